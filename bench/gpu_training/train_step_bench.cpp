// One GPU's training throughput, the way the seeds' single-GPU figures are
// taken: a model plugin on CUDA, synthetic ImageNet-shaped batches (random
// values made once on the host, copied in every step as a loader's would
// be), forward, backward, momentum SGD on the device; images/s over the
// timed steps (after warm-up), the step's phases, and the FLOP/s achieved.
//   gpu_train_bench [--depth 50] [--batch 64] [--size 224] [--steps 30] [--warmup 10]
//                   [--tf32 1] [--cudnn-benchmark 1] [--model resnet]
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cuda/cuda_probe.h"
#include "dtbench/plugin.hpp"
#include "host/plugin_instance.h"
#include "plugin/loader.h"
#include "sgd.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::string model = "resnet";
  int64_t depth = 50, batch = 64, size = 224, steps = 30, warmup = 10;
  bool tf32 = true, benchmark = true;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i];
    const char* value = argv[i + 1];
    if (key == "--model")
      o.model = value;
    else if (key == "--depth")
      o.depth = std::stoll(value);
    else if (key == "--batch")
      o.batch = std::stoll(value);
    else if (key == "--size")
      o.size = std::stoll(value);
    else if (key == "--steps")
      o.steps = std::stoll(value);
    else if (key == "--warmup")
      o.warmup = std::stoll(value);
    else if (key == "--tf32")
      o.tf32 = std::string(value) != "0";
    else if (key == "--cudnn-benchmark")
      o.benchmark = std::string(value) != "0";
    else
      throw std::invalid_argument("unknown option " + key);
  }
  return o;
}

double ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) try {
  using namespace dtb::core;
  const Options o = parse(argc, argv);
  const CudaProbe probe = probeCuda();
  if (probe.devices.empty()) {
    std::printf("gpu_train_bench: skipped: %s\n", describe(probe).c_str());
    return 0;
  }
  PluginLoader loader;  // beside the executable: bin/../lib/dtbench/plugins
  dtb_model_setup_t setup{};
  setup.struct_size = sizeof(setup);
  setup.device = {DTB_DEVICE_CUDA, 0};
  setup.input_ndim = 3;
  setup.input_shape[0] = 3;
  setup.input_shape[1] = o.size;
  setup.input_shape[2] = o.size;
  setup.num_classes = 1000;
  setup.max_batch = static_cast<uint32_t>(o.batch);
  setup.seed = 1;
  setup.threads = 1;
  ParamValues params{{"allow_tf32", o.tf32}, {"cudnn_benchmark", o.benchmark}};
  if (o.model == "resnet") params["depth"] = o.depth;
  if (o.model == "resnet") params["stem"] = std::string("imagenet");
  auto model = createModel(loader.load(PluginKind::kModel, o.model), params, setup);
  const auto& api = model->plugin().descriptor<dtb_model_plugin_v1_t>();

  dtb_param_t* const* views = nullptr;
  uint32_t count = 0;
  model->check("params", api.params(model->context(), &views, &count));
  std::vector<void*> momentum(count);
  uint64_t parameters = 0;
  for (uint32_t p = 0; p < count; ++p) {
    const size_t bytes = views[p]->value.count * sizeof(float);
    if (cudaMalloc(&momentum[p], bytes) != cudaSuccess || cudaMemset(momentum[p], 0, bytes) != cudaSuccess)
      throw std::runtime_error("no GPU memory for the momentum buffers");
    parameters += views[p]->value.count;
  }

  const uint64_t sampleCount = static_cast<uint64_t>(3 * o.size * o.size);
  std::vector<float> inputs(sampleCount * o.batch);
  std::vector<int32_t> labels(o.batch);
  std::mt19937 rng(3);
  std::normal_distribution<float> normal;
  for (float& v : inputs) v = normal(rng);
  for (auto& l : labels) l = static_cast<int32_t>(rng() % 1000);
  dtb_batch_t batch{};
  batch.struct_size = sizeof(batch);
  batch.size = static_cast<uint32_t>(o.batch);
  batch.inputs = dtb::hostTensor(inputs.data(), inputs.size(), DTB_DTYPE_F32);
  batch.labels = dtb::hostTensor(labels.data(), labels.size(), DTB_DTYPE_I32);

  std::vector<double> forward, backward, optimizer, step;
  double loss = 0;
  for (int64_t s = 0; s < o.warmup + o.steps; ++s) {
    dtb_forward_result_t result{};
    result.struct_size = sizeof(result);
    const auto t0 = Clock::now();
    model->check("forward",
                 api.forward(model->context(), &batch, nullptr, &result));  // ends reading the loss
    const auto t1 = Clock::now();
    model->check("backward", api.backward(model->context(), nullptr));  // ends with the GPU idle
    const auto t2 = Clock::now();
    for (uint32_t p = 0; p < count; ++p) {
      const float decay = (views[p]->flags & DTB_PARAM_FLAG_NO_WEIGHT_DECAY) ? 0.0f : 1e-4f;
      if (!dtb::bench::sgdStep(static_cast<float*>(views[p]->value.data),
                               static_cast<const float*>(views[p]->grad.data),
                               static_cast<float*>(momentum[p]), views[p]->value.count, 0.01f, 0.9f, decay))
        throw std::runtime_error("the SGD kernel did not launch");
    }
    if (cudaDeviceSynchronize() != cudaSuccess) throw std::runtime_error("the SGD step failed");
    const auto t3 = Clock::now();
    loss = result.loss;
    if (s < o.warmup) continue;
    forward.push_back(ms(t1 - t0));
    backward.push_back(ms(t2 - t1));
    optimizer.push_back(ms(t3 - t2));
    step.push_back(ms(t3 - t0));
  }
  size_t freeBytes = 0, totalBytes = 0;
  cudaMemGetInfo(&freeBytes, &totalBytes);
  const double stepMs = median(step);
  const double imagesPerSecond = static_cast<double>(o.batch) / (stepMs / 1000.0);
  // Training costs about three forwards (forward, input and weight
  // gradients); ResNet-50's forward is 4.09 G multiply-adds at 224x224
  // (torchvision), scaling with the pixels.
  const double flopPerImage = o.model == "resnet" && o.depth == 50
                                  ? 3 * 2 * 4.089e9 * double(o.size * o.size) / (224.0 * 224.0)
                                  : 0.0;
  std::printf("device: %s; model %s%s, %llu parameters, batch %lld, %lldx%lld, tf32 %s, cudnn.benchmark %s\n",
              probe.devices[0].c_str(), o.model.c_str(),
              o.model == "resnet" ? std::to_string(o.depth).c_str() : "",
              static_cast<unsigned long long>(parameters), static_cast<long long>(o.batch),
              static_cast<long long>(o.size), static_cast<long long>(o.size), o.tf32 ? "on" : "off",
              o.benchmark ? "on" : "off");
  std::printf(
      "steps %lld (after %lld warm-up), median ms: step %.2f = forward %.2f + backward %.2f + sgd %.2f\n",
      static_cast<long long>(o.steps), static_cast<long long>(o.warmup), stepMs, median(forward),
      median(backward), median(optimizer));
  std::printf("images/s %.1f", imagesPerSecond);
  if (flopPerImage > 0) std::printf("; achieved %.1f TFLOP/s", imagesPerSecond * flopPerImage / 1e12);
  std::printf("; GPU memory in use %.2f GiB; last loss %.4f\n", double(totalBytes - freeBytes) / (1 << 30),
              loss);
  for (void* m : momentum) cudaFree(m);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "gpu_train_bench: %s\n", e.what());
  return 1;
}
