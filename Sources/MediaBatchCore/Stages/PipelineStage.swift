import MediaFormats
import PipelineModel
import VipsKit

/// A stage as the run uses it: its declaration for the pipeline file (`Stage`: syntax, place,
/// fingerprint text, `validate`'s words) and its part of each item, all in its one file, so
/// that no code outside it repeats its decisions: what it adds to the item's fingerprint,
/// whether the item runs (`check`, before admission), what it makes of the item (`plan`: its
/// pictures, formats, metadata edits, paths and cost, from the header alone) and, for `write`,
/// making it (`run`, once admitted). Each part starts with a guard that returns when the stage
/// does not apply to the item. `StageList` lists every stage type, in order.
protocol PipelineStage: Stage {
    /// Adds what this stage contributes to the outputs (recipe) or the selection of an item of
    /// `format` (nil: not media). Known before any header is read: the state database redoes an
    /// item when its fingerprint changes.
    func fingerprint(_ fingerprint: inout ItemFingerprint, format: MediaFormat?)
    /// Before admission: throws `StageFailure` when the item fails, `ItemSkipped` when it is not
    /// for this pipeline.
    func check(_ item: ItemContext) throws
    /// Adds this stage's part to the item's plan, in pipeline order, once every stage has
    /// checked the item and before any pixel is decoded: what the stage before it planned is what
    /// it transforms.
    func plan(_ plan: inout ItemPlan, for item: ItemContext)
    /// Once the scheduler has admitted the item: makes what `plan` planned (only `write` has
    /// anything to make), adding to `outcome`; throws `StageFailure` when the item fails.
    func run(_ item: ItemContext, _ plan: ItemPlan, _ outcome: inout PixelOutcome) throws
}

extension PipelineStage {
    /// Most stages decide nothing about whether an item runs.
    func check(_ item: ItemContext) throws {}
    /// Stages that shape neither pictures, formats, paths nor cost plan nothing.
    func plan(_ plan: inout ItemPlan, for item: ItemContext) {}
    /// Every stage but `write` is done once it has planned.
    func run(_ item: ItemContext, _ plan: ItemPlan, _ outcome: inout PixelOutcome) throws {}
}

/// A stage that reads something of each item's photo once the outputs are made (a fingerprint):
/// it gets the smallest picture `write` encoded that shows the whole photo, squeezed to 64 × 64
/// (one band, luma) as it streamed into its encoder, or nil where none was (outputs all copies, or
/// kept from an earlier run; no `write`), and adds what it read to `outcome.readings` under its key.
protocol PhotoReader: PipelineStage {
    func read(_ photo: VImage?, of item: ItemContext, _ plan: ItemPlan, into outcome: inout PixelOutcome) throws
}

/// A stage with an operation of its own on pictures: its `plan` adds it to the pictures it
/// shapes (`Picture.applying`), and `write` applies it to each of them once they are resized, cut
/// or padded and converted (`PictureRenderer`): the renderer names no stage.
protocol PictureEffect: PipelineStage {
    /// `image`, the rendered `picture` (every frame of an animation, stacked), with the operation applied.
    func apply(to image: VImage, for picture: Picture) throws -> VImage
}
