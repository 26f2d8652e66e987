#include "analyze/image_analyzer.h"

#include <fcntl.h>
#include <unistd.h>
#include <vips/vips8>

#include <cerrno>
#include <cstring>

#include "stowage/error.h"

namespace stowage::analyze {

namespace {

void initialise_vips() {
  static const bool initialised = [] {
    if (VIPS_INIT("stowage") != 0) {
      throw Error::configuration(std::string("libvips could not start: ") +
                                 vips_error_buffer());
    }
    return true;
  }();
  (void)initialised;
}

// Loading from a source, not a filename or buffer, keeps libvips' operation
// cache from answering with the header of an earlier file at the same path
// or an earlier buffer at the same address.
template <typename MakeSource>
std::optional<ImageDimensions> read_header(MakeSource make_source) {
  initialise_vips();
  try {
    const vips::VImage image = vips::VImage::new_from_source(
        make_source(), "",
        vips::VImage::option()->set("access", VIPS_ACCESS_SEQUENTIAL));
    ImageDimensions dimensions{image.width(), image.height()};
    const int orientation = image.get_typeof(VIPS_META_ORIENTATION) != 0
                                ? image.get_int(VIPS_META_ORIENTATION)
                                : 1;
    if (orientation >= 5 && orientation <= 8) {
      std::swap(dimensions.width, dimensions.height);
    }
    return dimensions;
  } catch (const vips::VError&) {
    vips_error_clear();
    return std::nullopt;
  }
}

}  // namespace

std::optional<ImageDimensions> analyze_image_bytes(std::string_view bytes) {
  if (bytes.empty()) return std::nullopt;
  return read_header([&] {
    return vips::VSource::new_from_memory(bytes.data(), bytes.size());
  });
}

std::optional<ImageDimensions> analyze_image_file(
    const std::filesystem::path& path) {
  // Opened here so that a missing file is an error, not "not an image".
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    throw Error::io("cannot open " + path.string() + ": " +
                    std::strerror(errno));
  }
  // libvips reads through its own duplicate of the descriptor.
  const std::optional<ImageDimensions> dimensions =
      read_header([&] { return vips::VSource::new_from_descriptor(fd); });
  ::close(fd);
  return dimensions;
}

}  // namespace stowage::analyze
