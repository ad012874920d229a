#!/usr/bin/env python3
"""PyTorch DistributedDataParallel reference for bench/resnet18_cifar: the same
ResNet-18 (CIFAR stem: 3x3 stride-1 first convolution, no max pooling; the
blocks as torchvision's, from tools/fixtures/resnet_blocks_reference.py),
batch, optimizer, step count and thread count as matrix.toml, on random
3x32x32 inputs, gloo over loopback, CPU only. Prints one line:

    pytorch world=<G> samples_per_s=<S> epoch_seconds=<T>

    pytorch_ddp.py WORLD EPOCHS STEPS_PER_EPOCH BATCH THREADS

Needs Debian's python3-torch (a benchmark dependency, not dtbench's).
"""
import os
import sys
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn.functional as F
from torch import nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "fixtures"))
from resnet_blocks_reference import BasicBlock  # noqa: E402


class ResNet18Cifar(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, 3, stride=1, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        blocks, cin = [], 64
        for stage, planes in enumerate([64, 128, 256, 512]):
            for b in range(2):
                blocks.append(BasicBlock(cin, planes, 2 if b == 0 and stage > 0 else 1))
                cin = planes
        self.layers = nn.Sequential(*blocks)
        self.fc = nn.Linear(512, classes)

    def forward(self, x):
        x = self.layers(F.relu(self.bn1(self.conv1(x))))
        return self.fc(F.adaptive_avg_pool2d(x, 1).flatten(1))


def worker(rank, world, epochs, steps, batch, threads, results):
    torch.set_num_threads(threads)
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = "29518"
    dist.init_process_group("gloo", rank=rank, world_size=world)
    torch.manual_seed(1)
    model = torch.nn.parallel.DistributedDataParallel(ResNet18Cifar())
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05 * world, momentum=0.9)
    generator = torch.Generator().manual_seed(rank)
    batches = [(torch.randn(batch, 3, 32, 32, generator=generator), torch.randint(0, 10, (batch,), generator=generator))
               for _ in range(4)]
    seconds = []
    for _ in range(epochs):
        model.train()
        start = time.perf_counter()
        for step in range(steps):
            images, labels = batches[step % len(batches)]
            optimizer.zero_grad()
            F.cross_entropy(model(images), labels).backward()
            optimizer.step()
        seconds.append(time.perf_counter() - start)
    steady = seconds[1:] or seconds
    if rank == 0:
        results.put((steps * batch * world * len(steady) / sum(steady), sum(steady) / len(steady)))
    dist.destroy_process_group()


def main():
    world, epochs, steps, batch, threads = (int(a) for a in sys.argv[1:6])
    context = mp.get_context("spawn")
    results = context.Queue()
    mp.spawn(worker, args=(world, epochs, steps, batch, threads, results), nprocs=world, join=True)
    rate, epoch_seconds = results.get()
    print(f"pytorch world={world} samples_per_s={rate:.1f} epoch_seconds={epoch_seconds:.3f}")


if __name__ == "__main__":
    main()
