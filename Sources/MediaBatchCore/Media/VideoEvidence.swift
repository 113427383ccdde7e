import LibAVKit
import MetadataKit
import PipelineModel

/// The kinds a movie header shows, one rule per kind.
struct VideoEvidence {
    let probe: VideoProbe
    let movie: MovieMetadata?

    /// Apple Photos' slow-motion threshold: capture at 85 fps or more (iPhones record 120/240).
    static let highFrameRate = 85.0

    var kinds: Set<MediaKind> {
        let rules: [(MediaKind, Bool)] = [
            (.sloMoVideos, isSlowMotion), (.timelapseVideos, isTimelapse), (.cinematicVideos, isCinematic),
            (.spatialMedia, isSpatial), (.screenRecordings, isScreenRecording),
        ]
        return Set(rules.filter(\.1).map(\.0))
    }

    private func value(_ key: String) -> String? { movie?.value(for: key) }

    /// iOS 18 says it outright (0: play slowed down); before that, the capture frame rate.
    var isSlowMotion: Bool {
        if let intent = value(Evidence.playbackIntentKey) { return intent == "0" }
        return (probe.framesPerSecond ?? 0) >= Self.highFrameRate
    }

    /// The camera tags the first video track, not the movie.
    var isTimelapse: Bool {
        let videoTrack = movie?.tracks.first { $0.handler == "vide" }
        return videoTrack?.keyedValues.contains { Evidence.captureModeKeys.contains($0.key) && $0.value.hasPrefix("Time-lapse") } == true
    }

    var isCinematic: Bool {
        guard value(Evidence.cinematicIntentKey) != "0" else { return false }
        return movie?.tracks.contains { track in
            Evidence.cinematicTrackKeys.allSatisfy(track.timedMetadataKeys.contains)
        } == true
    }

    var isSpatial: Bool {
        movie?.tracks.contains { $0.sampleEntryBoxTypes.contains("vexu") } == true
    }

    var isScreenRecording: Bool {
        value(Evidence.authorKey) == Evidence.replayKitAuthor
    }
}
