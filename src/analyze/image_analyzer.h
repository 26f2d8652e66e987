// Image analysis: an image's displayed width and height, read from its
// header by libvips without decoding any pixels, so analysing a large image
// costs about as much as a small one.
//
// Thread-safe: libvips is initialised once, on first use, and each call
// works on its own image.
#pragma once

#include <filesystem>
#include <optional>
#include <string_view>

namespace stowage::analyze {

struct ImageDimensions {
  int width = 0;
  int height = 0;

  bool operator==(const ImageDimensions&) const = default;
};

// The size the image is displayed at: when its EXIF orientation is 5–8
// (rotated by 90° or 270°), the stored width and height are swapped, as
// Active Storage's analyzer does. nullopt if libvips cannot read the bytes
// as an image.
std::optional<ImageDimensions> analyze_image_bytes(std::string_view bytes);
// Throws Error(IoError) naming the path if the file cannot be opened.
std::optional<ImageDimensions> analyze_image_file(
    const std::filesystem::path& path);

}  // namespace stowage::analyze
