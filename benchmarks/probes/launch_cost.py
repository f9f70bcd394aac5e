"""What a launch costs the host on this GPU, as the fused search launches (one block an SM of 512
threads, one 320-byte argument struct): the driver's call for a plain launch, for a cooperative
launch of a kernel with no grid barrier, of one with a grid barrier and of one with a grid
barrier and a stack frame (local memory, as register spills make), and a CUDA graph's
launch of that cooperative kernel captured once; then a whole round as a search makes it (launch,
a 512-byte report copied back into page-locked memory, wait) made of driver calls, against the
same round captured as one graph whose kernel reads its arguments from device memory, copied
there from page-locked memory inside the graph. Host microseconds a call, median of --calls,
the stream drained between calls (untimed). Prints a table and, with --json, writes it.

    python3 benchmarks/probes/launch_cost.py [--calls 2000] [--json out.json]
"""
import argparse
import time

import numpy as np

from lagraph_dist.core.version import code_identity
from lagraph_dist.tools.bench import write_json

SOURCE = r"""
#include <cooperative_groups.h>
struct args_t { unsigned long long field[40]; };
__device__ void answer(const args_t& a) {
    if (blockIdx.x == 0 && threadIdx.x == 0) ((unsigned long long*)a.field[1])[0] = a.field[0];
}
extern "C" __global__ void plain(const args_t a) { answer(a); }
extern "C" __global__ void synced(const args_t a) { cooperative_groups::this_grid().sync(); answer(a); }
extern "C" __global__ void synced_with_stack(const args_t a) {    // a local array: a stack frame, as spills make
    unsigned long long local[32];
    for (int k = 0; k < 32; ++k) local[k] = a.field[k] * (threadIdx.x + k);
    cooperative_groups::this_grid().sync();
    if (blockIdx.x == 0 && threadIdx.x == 0) ((unsigned long long*)a.field[1])[1] = local[a.field[2] & 31];
    answer(a);
}
extern "C" __global__ void synced_from_device(const args_t* a) {
    cooperative_groups::this_grid().sync();
    answer(*a);
}
"""
ARGUMENT_BYTES = 320
REPORT_BYTES = 512
THREADS = 512


def median_us(calls, once, drain):
    """Median host microseconds of ``once()`` over ``calls`` calls, ``drain()`` between them."""
    times = np.empty(calls)
    for k in range(calls):
        start = time.perf_counter_ns()
        once()
        times[k] = time.perf_counter_ns() - start
        drain()
    return float(np.median(times)) / 1e3


def main():
    import cupy as cp
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--json")
    args = parser.parse_args()
    driver, runtime = cp.cuda.driver, cp.cuda.runtime
    module = cp.RawModule(code=SOURCE, options=("-std=c++17",), enable_cooperative_groups=True)
    kernels = {name: module.get_function(name).kernel.ptr
               for name in ("plain", "synced", "synced_with_stack", "synced_from_device")}
    blocks = runtime.getDeviceProperties(0)["multiProcessorCount"]
    stream = cp.cuda.Stream(non_blocking=True)
    answer = cp.zeros(REPORT_BYTES // 8, cp.uint64)
    struct = np.zeros(ARGUMENT_BYTES // 8, np.uint64)
    struct[0], struct[1] = 7, answer.data.ptr
    params = np.array([struct.ctypes.data], np.uintp)           # kernelParams: one pointer to the struct
    pinned_args = cp.cuda.alloc_pinned_memory(ARGUMENT_BYTES)
    host_args = np.frombuffer(pinned_args, np.uint64, ARGUMENT_BYTES // 8)
    host_args[:] = struct
    device_args = cp.empty(ARGUMENT_BYTES // 8, cp.uint64)
    pointer_param = np.array([device_args.data.ptr], np.uint64)
    params_by_pointer = np.array([pointer_param.ctypes.data], np.uintp)
    pinned_report = cp.cuda.alloc_pinned_memory(REPORT_BYTES)
    host_report = np.frombuffer(pinned_report, np.uint64, REPORT_BYTES // 8)

    def launch(name, cooperative, kernel_params=params.ctypes.data):
        if cooperative:
            driver.launchCooperativeKernel(kernels[name], blocks, 1, 1, THREADS, 1, 1, 0, stream.ptr, kernel_params)
        else:      # (the driver's call alone: no wrapper made on the timed path)
            driver.launchKernel(kernels[name], blocks, 1, 1, THREADS, 1, 1, 0, stream.ptr, kernel_params, 0)

    def copy_report():
        runtime.memcpyAsync(host_report.ctypes.data, answer.data.ptr, REPORT_BYTES, runtime.memcpyDeviceToHost,
                            stream.ptr)

    def round_of_calls():
        launch("synced", True)
        copy_report()
        stream.synchronize()

    rows, graphs = [], {}
    for what, once in (("plain launch", lambda: launch("plain", False)),
                       ("cooperative launch, no grid barrier", lambda: launch("plain", True)),
                       ("cooperative launch, a grid barrier", lambda: launch("synced", True)),
                       ("cooperative launch, a grid barrier and a stack frame",
                        lambda: launch("synced_with_stack", True))):
        rows.append({"what": what, "us": median_us(args.calls, once, stream.synchronize)})
    captures = {"the cooperative launch": lambda: launch("synced", True),
                "the round": lambda: (runtime.memcpyAsync(device_args.data.ptr, host_args.ctypes.data, ARGUMENT_BYTES,
                                                          runtime.memcpyHostToDevice, stream.ptr),
                                      launch("synced_from_device", True, params_by_pointer.ctypes.data),
                                      copy_report())}
    for name, body in captures.items():
        try:
            stream.begin_capture()
            body()
            graphs[name] = stream.end_capture()
        except Exception as error:           # (the driver's refusal is the finding)
            try:
                stream.end_capture()
            except Exception:
                pass
            graphs[name] = f"{type(error).__name__}: {str(error).splitlines()[0][:160]}"
    if not isinstance(graphs["the cooperative launch"], str):
        rows.append({"what": "graph launch of the captured cooperative launch",
                     "us": median_us(args.calls, lambda: graphs["the cooperative launch"].launch(stream),
                                     stream.synchronize)})
    rows.append({"what": "round of driver calls (launch, report copy, wait)",
                 "us": median_us(args.calls, round_of_calls, lambda: None)})
    if not isinstance(graphs["the round"], str):
        host_report[:] = 0
        graphs["the round"].launch(stream)
        stream.synchronize()
        if int(host_report[0]) != int(struct[0]):
            raise SystemExit("the captured round's report did not come back")
        rows.append({"what": "round as one graph (arguments copied in, launch, report copy), and the wait",
                     "us": median_us(args.calls, lambda: (graphs["the round"].launch(stream), stream.synchronize()),
                                     lambda: None)})
    capture = {name: "yes" if not isinstance(graph, str) else f"no ({graph})" for name, graph in graphs.items()}
    for row in rows:
        print(f"{row['what']:80s} {row['us']:8.2f} us")
    for name, answer_text in capture.items():
        print(f"stream capture of {name}: {answer_text}")
    if args.json:
        write_json({"benchmark": "launch_cost", "commit": code_identity()["commit"],
                    "device": runtime.getDeviceProperties(0)["name"].decode(), "blocks": blocks,
                    "threads": THREADS, "calls": args.calls, "host_us": rows, "capture": capture}, args.json)


if __name__ == "__main__":
    main()
