"""PyTorch's ResNet on the same GPU, measured as gpu_train_bench measures
dtbench: torchvision's model, a synthetic batch made once in pinned host
memory and copied in every step, forward, cross-entropy, backward, momentum
SGD (lr 0.01, momentum 0.9, weight decay 1e-4), the loss read every step;
the median step over the timed steps after warm-up. Prints one line that
compare.sh reads ("images/s N").

    python3 pytorch_reference.py [--depth 50] [--batch 64] [--size 224]
        [--steps 30] [--warmup 10] [--tf32 1] [--cudnn-benchmark 1]
        [--amp none|fp16|bf16] [--channels-last 0]
"""
import argparse
import statistics
import time

import torch
import torchvision


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--depth", type=int, default=50)
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--size", type=int, default=224)
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--tf32", type=int, default=1)
    p.add_argument("--cudnn-benchmark", type=int, default=1)
    p.add_argument("--amp", default="none", choices=["none", "fp16", "bf16"])
    p.add_argument("--channels-last", type=int, default=0)
    a = p.parse_args()

    torch.backends.cudnn.benchmark = bool(a.cudnn_benchmark)
    torch.backends.cudnn.allow_tf32 = bool(a.tf32)
    torch.backends.cuda.matmul.allow_tf32 = False  # PyTorch's default, as dtbench's linear layers
    device = torch.device("cuda", 0)
    model = getattr(torchvision.models, f"resnet{a.depth}")(num_classes=1000).to(device)
    memory_format = torch.channels_last if a.channels_last else torch.contiguous_format
    model = model.to(memory_format=memory_format)
    decay, no_decay = [], []
    for name, param in model.named_parameters():
        (no_decay if param.ndim <= 1 else decay).append(param)
    optimizer = torch.optim.SGD([{"params": decay, "weight_decay": 1e-4}, {"params": no_decay, "weight_decay": 0}],
                                lr=0.01, momentum=0.9)
    criterion = torch.nn.CrossEntropyLoss()
    generator = torch.Generator().manual_seed(3)
    inputs = torch.randn(a.batch, 3, a.size, a.size, generator=generator).pin_memory()
    labels = torch.randint(0, 1000, (a.batch,), generator=generator).pin_memory()
    scaler = torch.amp.GradScaler("cuda", enabled=a.amp == "fp16")
    amp_dtype = {"fp16": torch.float16, "bf16": torch.bfloat16}.get(a.amp)

    steps = []
    loss_value = 0.0
    for step in range(a.warmup + a.steps):
        start = time.perf_counter()
        x = inputs.to(device, non_blocking=True).contiguous(memory_format=memory_format)
        y = labels.to(device, non_blocking=True)
        with torch.autocast("cuda", dtype=amp_dtype or torch.float32, enabled=amp_dtype is not None):
            loss = criterion(model(x), y)
        loss_value = loss.item()  # as dtbench reads its loss every step
        optimizer.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        torch.cuda.synchronize()
        if step >= a.warmup:
            steps.append(time.perf_counter() - start)
    median = statistics.median(steps)
    print(f"pytorch {torch.__version__} resnet{a.depth} batch {a.batch} tf32 {a.tf32} "
          f"cudnn.benchmark {a.cudnn_benchmark} amp {a.amp} channels_last {a.channels_last}: "
          f"step {median * 1000:.2f} ms; images/s {a.batch / median:.1f}; last loss {loss_value:.4f}")


if __name__ == "__main__":
    main()
