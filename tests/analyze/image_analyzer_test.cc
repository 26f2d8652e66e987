#include "analyze/image_analyzer.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <vips/vips8>

#include "stowage/error.h"

namespace stowage::analyze {
namespace {

namespace fs = std::filesystem;

// Encodes a width × height image; orientation 0 means no EXIF orientation.
std::string encoded_image(int width, int height, const char* suffix,
                          int orientation = 0) {
  static const bool initialised = VIPS_INIT("image_analyzer_test") == 0;
  EXPECT_TRUE(initialised);
  vips::VImage image = vips::VImage::black(width, height).copy();
  if (orientation != 0) image.set(VIPS_META_ORIENTATION, orientation);
  void* data = nullptr;
  std::size_t size = 0;
  image.write_to_buffer(suffix, &data, &size);
  std::string bytes(static_cast<const char*>(data), size);
  g_free(data);
  return bytes;
}

TEST(ImageAnalyzerTest, ReadsPngAndJpegDimensions) {
  EXPECT_EQ(analyze_image_bytes(encoded_image(640, 480, ".png")),
            (ImageDimensions{640, 480}));
  EXPECT_EQ(analyze_image_bytes(encoded_image(300, 200, ".jpg")),
            (ImageDimensions{300, 200}));
}

TEST(ImageAnalyzerTest, SwapsDimensionsForQuarterTurnOrientations) {
  for (int orientation = 1; orientation <= 8; ++orientation) {
    SCOPED_TRACE(orientation);
    const std::string jpeg = encoded_image(300, 200, ".jpg", orientation);
    const ImageDimensions expected =
        orientation >= 5 ? ImageDimensions{200, 300} : ImageDimensions{300, 200};
    EXPECT_EQ(analyze_image_bytes(jpeg), expected);
  }
}

TEST(ImageAnalyzerTest, ReadsOnlyTheHeader) {
  // The pixel data is cut off; the header alone gives the size.
  const std::string jpeg = encoded_image(1200, 900, ".jpg");
  const std::size_t start_of_scan = jpeg.find("\xff\xda");
  ASSERT_NE(start_of_scan, std::string::npos);
  EXPECT_EQ(analyze_image_bytes(jpeg.substr(0, start_of_scan + 20)),
            (ImageDimensions{1200, 900}));
}

TEST(ImageAnalyzerTest, NonImagesHaveNoDimensions) {
  EXPECT_EQ(analyze_image_bytes(""), std::nullopt);
  EXPECT_EQ(analyze_image_bytes("just some text, not an image\n"), std::nullopt);
  EXPECT_EQ(analyze_image_bytes(std::string(1000, '\0')), std::nullopt);
}

TEST(ImageAnalyzerTest, ReadsFilesAndNeverAnswersFromCache) {
  std::string pattern =
      (fs::temp_directory_path() / "stowage-image-XXXXXX").string();
  ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
  const fs::path file = fs::path(pattern) / "image";

  std::ofstream(file, std::ios::binary) << encoded_image(40, 30, ".png");
  EXPECT_EQ(analyze_image_file(file), (ImageDimensions{40, 30}));
  // The same path with other contents: the new header is read.
  std::ofstream(file, std::ios::binary | std::ios::trunc)
      << encoded_image(70, 50, ".jpg", 6);
  EXPECT_EQ(analyze_image_file(file), (ImageDimensions{50, 70}));
  std::ofstream(file, std::ios::binary | std::ios::trunc) << "text";
  EXPECT_EQ(analyze_image_file(file), std::nullopt);

  try {
    analyze_image_file(fs::path(pattern) / "missing");
    ADD_FAILURE() << "expected IoError";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::IoError);
    EXPECT_NE(error.message().find("missing"), std::string::npos);
  }
  fs::remove_all(pattern);
}

}  // namespace
}  // namespace stowage::analyze
