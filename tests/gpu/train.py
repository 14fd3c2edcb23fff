# train.py: a small PyTorch DDP-style loop (world size 1, nccl backend) with
# the usual hidden syncs: loss.item() and torch.cuda.synchronize() every
# step, and an all-reduce of the gradients.  --profile runs it under
# torch.profiler with CUDA activities instead, for the overhead comparison.
import os, sys, time
import torch
import torch.distributed as dist

def main():
    steps = int(os.environ.get("STEPS", "30"))
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29533")
    dist.init_process_group("nccl", rank=0, world_size=1)
    torch.cuda.set_device(0)
    model = torch.nn.Sequential(torch.nn.Linear(2048, 2048), torch.nn.ReLU(), torch.nn.Linear(2048, 10)).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x = torch.randn(512, 2048, device="cuda")
    y = torch.randint(0, 10, (512,), device="cuda")
    def step():
        with torch.cuda.nvtx.range("train_step"):  # NVTX through the tracer's injection
            return step_body()
    def step_body():
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        for p in model.parameters():
            dist.all_reduce(p.grad)
        opt.step()
        l = loss.item()
        torch.cuda.synchronize()
        return l
    for _ in range(3):
        step()
    t0 = time.perf_counter()
    if "--profile" in sys.argv:
        from torch.profiler import profile, ProfilerActivity
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            for _ in range(steps):
                step()
        prof.export_chrome_trace(os.environ.get("OUT", "/tmp") + "/torch_profiler_trace.json")
    else:
        for _ in range(steps):
            step()
    t1 = time.perf_counter()
    print(f"train.py: {steps} steps in {t1 - t0:.3f} s")
    dist.destroy_process_group()

if __name__ == "__main__":
    main()
