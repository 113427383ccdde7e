import Foundation
@testable import MediaBatchCore
import XCTest

/// Each app's name pattern, and names that only look like dates.
final class FileNameDateTests: XCTestCase {
    typealias Reading = FileNameDate.Reading

    let christmasEve = Reading(year: 2023, month: 12, day: 24, hour: 18, minute: 30, second: 0)
    let newYear = Reading(year: 2024, month: 1, day: 1, hour: 10, minute: 10, second: 10)

    func testAndroidCameras() {
        XCTAssertEqual(FileNameDate.read("IMG_20231224_183000.jpg"), christmasEve)
        XCTAssertEqual(FileNameDate.read("VID_20231224_183000.mp4"), christmasEve)
        XCTAssertEqual(FileNameDate.read("IMG_20231224_183000_HDR.jpg"), christmasEve)
        XCTAssertEqual(FileNameDate.read("img_20231224_183000.JPG"), christmasEve)
    }

    func testPixelNamesAreUTCWithMilliseconds() {
        let reading = Reading(year: 2023, month: 1, day: 2, hour: 3, minute: 4, second: 5, nanosecond: 123_000_000, isUTC: true)
        XCTAssertEqual(FileNameDate.read("PXL_20230102_030405123.jpg"), reading)
        XCTAssertEqual(FileNameDate.read("PXL_20230102_030405123.MP.jpg"), reading)
        XCTAssertEqual(reading.date.timeIntervalSince1970, 1_672_628_645.123, accuracy: 1e-6)
    }

    func testWhatsAppNamesHoldTheDayAlone() {
        let reading = Reading(year: 2022, month: 3, day: 15, hasTime: false)
        XCTAssertEqual(FileNameDate.read("IMG-20220315-WA0007.jpg"), reading)
        XCTAssertEqual(FileNameDate.read("VID-20220315-WA0007.mp4"), reading)
        XCTAssertEqual(reading.date, ISO8601DateFormatter().date(from: "2022-03-15T00:00:00Z"))
    }

    func testScreenshots() {
        XCTAssertEqual(FileNameDate.read("Screenshot_20240101-101010.png"), newYear)
        XCTAssertEqual(FileNameDate.read("Screenshot_20240101-101010_Chrome.png"), newYear)
        XCTAssertEqual(FileNameDate.read("Screenshot_2024-01-01-10-10-10.png"), newYear)
        XCTAssertEqual(FileNameDate.read("Screenshot 2024-01-01 at 10.10.10.png"), newYear)
        XCTAssertEqual(FileNameDate.read("Screen Shot 2024-01-01 at 10.10.10 AM.png"), newYear)
        var evening = newYear
        evening.hour = 22
        XCTAssertEqual(FileNameDate.read("Screenshot 2024-01-01 at 10.10.10\u{202F}PM.png"), evening)
        evening.hour = 0
        XCTAssertEqual(FileNameDate.read("Screenshot 2024-01-01 at 12.10.10 AM.png"), evening, "12 AM is midnight")
    }

    func testSamsungDropboxAndSignal() {
        XCTAssertEqual(FileNameDate.read("20231224_183000.jpg"), christmasEve)
        XCTAssertEqual(FileNameDate.read("2023-12-24 18.30.00.jpg"), christmasEve)
        XCTAssertEqual(FileNameDate.read("2023-12-24 18.30.00-1.jpg"), christmasEve)
        XCTAssertEqual(FileNameDate.read("signal-2023-12-24-183000.jpg"), christmasEve)
    }

    func testTheWallClockReadsAsUTC() {
        XCTAssertEqual(christmasEve.date, ISO8601DateFormatter().date(from: "2023-12-24T18:30:00Z"))
    }

    func testDaysAndTimesThatDoNotExistAreNoDates() {
        for name in ["IMG_20231324_183000.jpg", "IMG_20231232_183000.jpg", "IMG_20230230_183000.jpg", "IMG_20231200_183000.jpg",
                     "IMG_20231224_243000.jpg", "IMG_20231224_186000.jpg", "IMG_20231224_183060.jpg", "IMG-20230229-WA0001.jpg",
                     "Screenshot 2024-01-01 at 13.10.10 PM.png", "Screenshot 2024-01-01 at 0.10.10 AM.png"] {
            XCTAssertNil(FileNameDate.read(name), name)
        }
        XCTAssertEqual(FileNameDate.read("IMG-20240229-WA0001.jpg")?.day, 29, "a leap year's 29 February")
    }

    func testYearsOutside1970To2099AreNoDates() {
        XCTAssertNil(FileNameDate.read("IMG_19691231_235959.jpg"))
        XCTAssertNil(FileNameDate.read("IMG_21000101_000000.jpg"))
        XCTAssertEqual(FileNameDate.read("IMG_19700101_000000.jpg")?.year, 1970)
        XCTAssertEqual(FileNameDate.read("IMG_20991231_235959.jpg")?.year, 2099)
    }

    func testDigitsInALongerRunAreNoDates() {
        for name in ["1234567890123456.jpg", "20231224_1830001.jpg", "120231224_183000.jpg", "IMG_202312241_183000.jpg",
                     "IMG_20231224_1830001.jpg", "PXL_20230102_0304051234.jpg", "IMG_1234.jpg", "photo 2023-12-24 18.30.00.jpg"] {
            XCTAssertNil(FileNameDate.read(name), name)
        }
    }
}
