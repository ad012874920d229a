#!/usr/bin/env python3
"""PyTorch DistributedDataParallel reference for bench/lenet_mnist: the same
LeNet, data, batch, optimizer and thread count as bench/lenet_mnist/matrix.toml,
on the gloo backend over loopback, CPU only. Prints the test accuracy after
each epoch, then the throughput of the steady epochs (all but the first):

    epoch=<E> test_accuracy=<A>
    pytorch world=<G> samples_per_s=<S> test_accuracy=<A> epoch_seconds=<T>

    pytorch_ddp.py DATA_DIR WORLD EPOCHS BATCH THREADS [MEAN STD [SEED]]

MEAN and STD normalise the pixels (default MNIST's 0.1307 and 0.3081); SEED
draws the initial weights, dropout masks and shuffles (default 1).

Needs Debian's python3-torch (a benchmark dependency, not dtbench's).
"""
import os
import struct
import sys
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn.functional as F


sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "fixtures"))
from lenet_reference import LeNet  # noqa: E402  PyTorch's MNIST example, as dtbench's lenet


def idx(path):
    data = open(path, "rb").read()
    ndim = data[3]
    dims = struct.unpack(">" + "I" * ndim, data[4:4 + 4 * ndim])
    return torch.frombuffer(bytearray(data[4 + 4 * ndim:]), dtype=torch.uint8).view(*dims)


def load(data_dir, prefix, mean, std):
    images = idx(os.path.join(data_dir, f"{prefix}-images-idx3-ubyte")).float().div(255)
    labels = idx(os.path.join(data_dir, f"{prefix}-labels-idx1-ubyte")).long()
    return ((images - mean) / std).unsqueeze(1), labels


def worker(rank, world, data_dir, epochs, batch, threads, mean, std, seed, results):
    torch.set_num_threads(threads)
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = "29517"
    dist.init_process_group("gloo", rank=rank, world_size=world)
    torch.manual_seed(seed)
    model = torch.nn.parallel.DistributedDataParallel(LeNet())
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01 * world, momentum=0.9)
    x, y = load(data_dir, "train", mean, std)
    tx, ty = load(data_dir, "t10k", mean, std)
    sampler = torch.utils.data.distributed.DistributedSampler(torch.utils.data.TensorDataset(x, y), world, rank, seed=seed)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=batch, sampler=sampler)
    seconds = []
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        model.train()
        start = time.perf_counter()
        samples = 0
        for images, labels in loader:
            optimizer.zero_grad()
            F.nll_loss(model(images), labels).backward()
            optimizer.step()
            samples += len(labels)
        seconds.append(time.perf_counter() - start)
        model.eval()
        with torch.no_grad():
            correct = (model(tx).argmax(dim=1) == ty).sum().item()
        if rank == 0:
            print(f"epoch={epoch + 1} test_accuracy={correct / len(ty):.4f}", flush=True)
    steady = seconds[1:] or seconds
    if rank == 0:
        results.put((samples * world * len(steady) / sum(steady), correct / len(ty), sum(steady) / len(steady)))
    dist.destroy_process_group()


def main():
    data_dir, world, epochs, batch, threads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
    mean, std = (float(sys.argv[6]), float(sys.argv[7])) if len(sys.argv) > 7 else (0.1307, 0.3081)
    seed = int(sys.argv[8]) if len(sys.argv) > 8 else 1
    context = mp.get_context("spawn")
    results = context.Queue()
    mp.spawn(worker, args=(world, data_dir, epochs, batch, threads, mean, std, seed, results), nprocs=world, join=True)
    rate, accuracy, epoch_seconds = results.get()
    print(f"pytorch world={world} samples_per_s={rate:.1f} test_accuracy={accuracy:.4f} epoch_seconds={epoch_seconds:.3f}")


if __name__ == "__main__":
    main()
