"""Pastes as people paste them (issue 26 "Pastes everywhere"): a full `nvidia-smi topo -m` of an
8 x H100 SXM5 node (2,501 characters, `tests.slack_stub.topo_8x_h100`) and a full nccl-tests
`all_reduce_perf` run on 8 GPUs, 8 B to 8 GB (5,000+ characters), for the surface tests."""

from __future__ import annotations

from tests.slack_stub import GERMAN_TOPO_QUESTION, topo_8x_h100

__all__ = ["GERMAN_TOPO_QUESTION", "allreduce_perf_8x_h100", "topo_8x_h100"]


def allreduce_perf_8x_h100(peak_busbw: float = 360.0) -> str:
    """`all_reduce_perf -b 8 -e 8G -f 2 -g 8` on one 8 x H100 SXM5 node: the header with each
    rank's device, 31 sizes out-of-place and in-place, the summary lines. busbw climbs to
    `peak_busbw` GB/s at the largest sizes."""
    lines = [
        "# nccl-tests version 2.13.9 nccl-headers=22105 nccl-library=22105",
        "# Collective test starting: all_reduce_perf",
        "# nThread 1 nGpus 8 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5 "
        "iters: 20 agg iters: 1 validation: 1 graph: 0",
        "#",
        "# Using devices",
    ]
    buses = ["0x18", "0x2a", "0x3a", "0x5d", "0x9a", "0xab", "0xba", "0xdb"]
    for rank, bus in enumerate(buses):
        lines.append(
            f"#  Rank {rank:2d} Group  0 Pid  41217 on gpu-node-07 device {rank:2d} [{bus}] "
            "NVIDIA H100 80GB HBM3"
        )
    lines += [
        "#",
        "#                                                              out-of-place"
        "                       in-place          ",
        "#       size         count      type   redop    root     time   algbw   busbw #wrong"
        "     time   algbw   busbw #wrong",
        "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)"
        "            (us)  (GB/s)  (GB/s)       ",
    ]
    factor = 2 * 7 / 8  # busbw = algbw * 2(n-1)/n
    for k in range(31):
        size = 8 << k
        # latency-bound below ~1 MB, then approaching the peak
        algbw = min(peak_busbw / factor, size / 1e9 / (30e-6 + size / (peak_busbw / factor * 1e9)))
        time_us = size / (algbw * 1e9) * 1e6 if algbw > 0 else 30.0
        busbw = algbw * factor
        row = (
            f"{size:12d}  {size // 4:12d}     float     sum      -1  {time_us:7.2f}  {algbw:6.2f}"
            f"  {busbw:6.2f}      0  {time_us * 0.998:7.2f}  {algbw:6.2f}  {busbw:6.2f}      0"
        )
        lines.append(row)
    lines += [
        "# Out of bounds values : 0 OK",
        f"# Avg bus bandwidth    : {peak_busbw * 0.41:.3f}",
        "#",
        "# Collective test concluded: all_reduce_perf",
        "#",
    ]
    return "\n".join(lines)
