#include "jpeg_codec.h"

// jpeglib.h needs FILE and size_t declared before it.
#include <jerror.h>
#include <jpeglib.h>

#include <algorithm>
#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

namespace dtb::dataset::jpeg_folder {
namespace {

// libjpeg hands its callbacks a pointer to `base`; the rest is ours.
struct ErrorManager {
  jpeg_error_mgr base;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

[[noreturn]] void jumpBack(j_common_ptr info) {
  auto* errors = reinterpret_cast<ErrorManager*>(info->err);
  (*info->err->format_message)(info, errors->message);
  std::longjmp(errors->jump, 1);
}

// Level -1 is a corrupt-data warning. The end of the data before the image's
// end (a truncated file) fails; the others (extraneous bytes before a marker,
// which cameras write) do not.
void onMessage(j_common_ptr info, int level) {
  if (level < 0 && info->err->msg_code == JWRN_JPEG_EOF) jumpBack(info);
}

ErrorManager* install(jpeg_error_mgr* base, ErrorManager* errors) {
  std::memset(errors, 0, sizeof(*errors));
  jpeg_std_error(base);
  base->error_exit = jumpBack;
  base->emit_message = onMessage;
  return errors;
}

// The frames that setjmp: plain C, no object with a destructor, so a
// longjmp out of libjpeg skips nothing. Each returns false on an error, with
// the message in errors->message.
bool createDecompress(jpeg_decompress_struct* info, ErrorManager* errors) {
  if (setjmp(errors->jump)) return false;
  jpeg_create_decompress(info);
  return true;
}

bool readHeader(jpeg_decompress_struct* info, ErrorManager* errors, const uint8_t* data, size_t size) {
  if (setjmp(errors->jump)) return false;
  jpeg_mem_src(info, data, static_cast<unsigned long>(size));
  jpeg_read_header(info, TRUE);
  return true;
}

bool readPixels(jpeg_decompress_struct* info, ErrorManager* errors, uint8_t* out, size_t rowBytes) {
  if (setjmp(errors->jump)) return false;
  jpeg_start_decompress(info);
  while (info->output_scanline < info->output_height) {
    JSAMPROW row = out + static_cast<size_t>(info->output_scanline) * rowBytes;
    jpeg_read_scanlines(info, &row, 1);
  }
  jpeg_finish_decompress(info);
  return true;
}

// What libjpeg's compressor needs across the setjmp: kept out of the frame.
struct EncodeState {
  jpeg_compress_struct info;
  ErrorManager errors;
  unsigned char* buffer = nullptr;
  unsigned long size = 0;
};

bool compress(EncodeState* s, const uint8_t* pixels, uint32_t width, uint32_t height, uint32_t channels,
              int quality) {
  if (setjmp(s->errors.jump)) return false;
  jpeg_create_compress(&s->info);
  jpeg_mem_dest(&s->info, &s->buffer, &s->size);
  s->info.image_width = width;
  s->info.image_height = height;
  s->info.input_components = static_cast<int>(channels);
  s->info.in_color_space = channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(&s->info);
  jpeg_set_quality(&s->info, quality, TRUE);
  jpeg_start_compress(&s->info, TRUE);
  while (s->info.next_scanline < height) {
    // libjpeg's API takes rows as non-const; it does not write them.
    auto* row = const_cast<JSAMPLE*>(pixels + static_cast<size_t>(s->info.next_scanline) * width * channels);
    jpeg_write_scanlines(&s->info, &row, 1);
  }
  jpeg_finish_compress(&s->info);
  return true;
}

// Owns a decompressor from create to destroy (destroy is right after an error too).
class Decompressor {
 public:
  explicit Decompressor(const std::string& name) : name_(name) {
    info_.err = &install(&errors_.base, &errors_)->base;
    if (!createDecompress(&info_, &errors_)) fail();
    created_ = true;
  }
  ~Decompressor() {
    if (created_) jpeg_destroy_decompress(&info_);
  }
  Decompressor(const Decompressor&) = delete;
  Decompressor& operator=(const Decompressor&) = delete;

  jpeg_decompress_struct* info() { return &info_; }
  ErrorManager* errors() { return &errors_; }
  [[noreturn]] void fail() const { fail(errors_.message); }
  [[noreturn]] void fail(const std::string& why) const { throw JpegError(name_ + ": " + why); }

 private:
  std::string name_;
  jpeg_decompress_struct info_{};
  ErrorManager errors_{};
  bool created_ = false;
};

}  // namespace

std::optional<std::string> outsideLimits(uint64_t width, uint64_t height, const DecodeLimits& limits) {
  const std::string claim =
      "the header says " + std::to_string(width) + " x " + std::to_string(height) + " pixels";
  if (width > limits.maxWidth || height > limits.maxHeight) {
    return claim + ", more than the bound of " + std::to_string(limits.maxWidth) + " x " +
           std::to_string(limits.maxHeight);
  }
  if (width * height > limits.maxPixels)
    return claim + ", more than the bound of " + std::to_string(limits.maxPixels) + " pixels in all";
  return std::nullopt;
}

Image decodeJpeg(const uint8_t* data, size_t size, const std::string& name, const DecodeLimits& limits) {
  Decompressor jpeg(name);
  jpeg_decompress_struct* info = jpeg.info();
  if (size == 0) jpeg.fail("empty file, not a JPEG");
  if (!readHeader(info, jpeg.errors(), data, size)) jpeg.fail();
  if (std::optional<std::string> why = outsideLimits(info->image_width, info->image_height, limits))
    jpeg.fail(*why);
  const uint64_t pixels = static_cast<uint64_t>(info->image_width) * info->image_height;
  // libjpeg's own working memory (a progressive file's coefficients) stays
  // within what the image's pixels may take, twice over.
  info->mem->max_memory_to_use = static_cast<long>(std::max<uint64_t>(pixels * 3 * 2, 16u << 20));
  if (info->jpeg_color_space == JCS_CMYK || info->jpeg_color_space == JCS_YCCK)
    jpeg.fail("a CMYK JPEG; only grayscale and RGB (YCbCr) ones are read");
  Image image;
  image.channels = info->num_components == 1 ? 1 : 3;
  info->out_color_space = image.channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
  image.width = info->image_width;
  image.height = info->image_height;
  image.pixels.resize(static_cast<size_t>(image.width) * image.height * image.channels);
  if (!readPixels(info, jpeg.errors(), image.pixels.data(),
                  static_cast<size_t>(image.width) * image.channels))
    jpeg.fail();
  return image;
}

std::string encodeJpeg(const Image& image, int quality) {
  if (image.channels != 1 && image.channels != 3)
    throw JpegError("encodeJpeg: 1 or 3 channels, not " + std::to_string(image.channels));
  if (image.width == 0 || image.height == 0 ||
      image.pixels.size() != static_cast<size_t>(image.width) * image.height * image.channels)
    throw JpegError("encodeJpeg: the pixels do not match " + std::to_string(image.width) + " x " +
                    std::to_string(image.height) + " x " + std::to_string(image.channels));
  auto state = std::make_unique<EncodeState>();
  state->info.err = &install(&state->errors.base, &state->errors)->base;
  const bool ok =
      compress(state.get(), image.pixels.data(), image.width, image.height, image.channels, quality);
  std::string bytes;
  if (ok) bytes.assign(reinterpret_cast<const char*>(state->buffer), state->size);
  jpeg_destroy_compress(&state->info);
  std::free(state->buffer);  // NOLINT: jpeg_mem_dest's buffer is malloc'd
  if (!ok) throw JpegError(std::string("encodeJpeg: ") + state->errors.message);
  return bytes;
}

}  // namespace dtb::dataset::jpeg_folder
