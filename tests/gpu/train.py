# train.py: a small PyTorch DDP-style loop (world size 1, nccl backend) with
# the usual hidden syncs: loss.item() and torch.cuda.synchronize() every
# step, an all-reduce of the gradients, and a torch.compile'd function
# (Triton kernels launched through the driver).  --profile runs it under
# torch.profiler with CUDA activities instead, for the overhead comparison.
# Environment: STEPS (timed steps, default 30), RUN_S (run for this many
# seconds instead), READY (a file touched once the warm-up steps are done),
# COMPILE=0 (no torch.compile), FIX: the fixed twins of the what-if
# (tests/gpu/run.sh step 9), "item" without loss.item(), "sync" without
# torch.cuda.synchronize(), "item,sync" without both; WIDTH, BATCH (2048,
# 512: a step bound by its launches) and HOST_MS (0: host work a step,
# as a data loader's or a logger's in the training process, before the
# forward pass).
import os, sys, time
import torch
import torch.distributed as dist

def main():
    steps = int(os.environ.get("STEPS", "30"))
    run_s = float(os.environ.get("RUN_S", "0"))
    fix = os.environ.get("FIX", "").split(",")
    width, batch = int(os.environ.get("WIDTH", "2048")), int(os.environ.get("BATCH", "512"))
    host_s = float(os.environ.get("HOST_MS", "0")) / 1e3
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29533")
    dist.init_process_group("nccl", rank=0, world_size=1)
    torch.cuda.set_device(0)
    model = torch.nn.Sequential(torch.nn.Linear(width, width), torch.nn.ReLU(), torch.nn.Linear(width, 10)).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x = torch.randn(batch, width, device="cuda")
    y = torch.randint(0, 10, (batch,), device="cuda")
    def scale(t):
        return torch.nn.functional.gelu(t) * 0.5 + t
    if os.environ.get("COMPILE", "1") != "0":
        scale = torch.compile(scale)
    def step():
        with torch.cuda.nvtx.range("train_step"):  # NVTX through the tracer's injection
            return step_body()
    def step_body():
        t = time.perf_counter() + host_s
        while time.perf_counter() < t:  # the host's own work, busy
            pass
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(scale(x)), y)
        loss.backward()
        for p in model.parameters():
            dist.all_reduce(p.grad)
        opt.step()
        l = loss.item() if "item" not in fix else loss
        if "sync" not in fix:
            torch.cuda.synchronize()
        return l
    for _ in range(3):
        step()
    if os.environ.get("READY"):
        open(os.environ["READY"], "w").close()
    t0 = time.perf_counter()
    n = 0
    if "--profile" in sys.argv:
        from torch.profiler import profile, ProfilerActivity
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            for _ in range(steps):
                step()
        n = steps
        prof.export_chrome_trace(os.environ.get("OUT", "/tmp") + "/torch_profiler_trace.json")
    elif run_s > 0:
        while time.perf_counter() - t0 < run_s:
            step()
            n += 1
    else:
        for _ in range(steps):
            step()
        n = steps
    t1 = time.perf_counter()
    print(f"train.py: {n} steps in {t1 - t0:.3f} s")
    dist.destroy_process_group()

if __name__ == "__main__":
    main()
