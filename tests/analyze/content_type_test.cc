#include "analyze/content_type.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include <vips/vips8>

namespace stowage::analyze {
namespace {

std::string encoded_image(const char* suffix) {
  static const bool initialised = VIPS_INIT("content_type_test") == 0;
  EXPECT_TRUE(initialised);
  void* data = nullptr;
  std::size_t size = 0;
  vips::VImage::black(16, 8).write_to_buffer(suffix, &data, &size);
  std::string bytes(static_cast<const char*>(data), size);
  g_free(data);
  return bytes;
}

TEST(ContentTypeTest, BytesDecideOverTheFilename) {
  EXPECT_EQ(detect_content_type(encoded_image(".png"), "photo.txt"), "image/png");
  EXPECT_EQ(detect_content_type(encoded_image(".jpg"), "page.html"), "image/jpeg");
  EXPECT_EQ(detect_content_type("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n", "a.css"),
            "application/pdf");
  EXPECT_EQ(detect_content_type("<!DOCTYPE html><html><body>hi</body></html>",
                                "notes.txt"),
            "text/html");
}

TEST(ContentTypeTest, TextExtensionsRefineGenericText) {
  const std::string css = "body {\n  color: red;\n  margin: 0 auto;\n}\n";
  EXPECT_EQ(detect_content_type(css, "style.css"), "text/css");
  EXPECT_EQ(detect_content_type(css, "STYLE.CSS"), "text/css");
  EXPECT_EQ(detect_content_type("function f(a) { return a + 1; }\n", "app.js"),
            "text/javascript");
  EXPECT_EQ(detect_content_type("name,size\nphoto.jpg,1024\n", "data.csv"),
            "text/csv");
  EXPECT_EQ(detect_content_type("# Title\n\nSome *text*.\n", "README.md"),
            "text/markdown");
  EXPECT_EQ(detect_content_type(
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"1\" "
                "height=\"1\"></svg>\n",
                "icon.svg"),
            "image/svg+xml");
}

TEST(ContentTypeTest, NamesNeverClaimHtml) {
  EXPECT_EQ(detect_content_type("just some words\n", "evil.html"), "text/plain");
}

TEST(ContentTypeTest, WithoutAKnownExtensionTextStaysGeneric) {
  const std::string css = "body {\n  color: red;\n}\n";
  EXPECT_NE(detect_content_type(css, "style"), "text/css");
  EXPECT_EQ(detect_content_type("plain words\n", "notes.unknown"), "text/plain");
}

TEST(ContentTypeTest, EmptyContent) {
  EXPECT_EQ(detect_content_type("", "blank"), "application/octet-stream");
  EXPECT_EQ(detect_content_type("", "blank.css"), "text/css");
}

TEST(ContentTypeTest, LooksOnlyAtTheFirstFourKilobytes) {
  std::string bytes(kContentTypeSniffLength, 'a');
  bytes += '\n';
  EXPECT_EQ(detect_content_type(bytes, "x.bin"), "text/plain");
  // Binary noise past the sniffed prefix does not change the answer.
  bytes += std::string(4096, '\0');
  EXPECT_EQ(detect_content_type(bytes, "x.bin"), "text/plain");
  EXPECT_EQ(detect_content_type(std::string(4096, '\0'), "x.bin"),
            "application/octet-stream");
}

TEST(ContentTypeTest, SafeFromManyThreads) {
  const std::string png = encoded_image(".png");
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 200; ++i) {
        if (detect_content_type(png, "a.css") != "image/png") ++wrong;
        if (detect_content_type("a {}\n", "a.css") != "text/css") ++wrong;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(wrong.load(), 0);
}

}  // namespace
}  // namespace stowage::analyze
