"""Parameters of the timing model that are not properties of a GPU description (GpuSpec).

GpuSpec (gpu.py) holds what a GPU *is*: SM count, clocks, cache sizes, bandwidths, per-class
pipe latency and issue interval, memory latencies. `ModelParams` holds how the model turns a
trace into cycles where the hardware is not documented: queue depths, fixed overheads, the
efficiency at which bandwidth is reached. They are global knobs (never per kernel), calibrated
against the timing kernel suite (docs/timing-model.md says how).
"""
from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class ModelParams:
    # front end
    # cycles before a warp issues after a taken branch (instruction fetch). In SASS a taken branch
    # costs ~10 (micro2 loop_fma1: a trip of 16 dependent FFMAs takes 64 + 7.2 cycles), but ptxas
    # unrolls simple loops 4x beyond the PTX (loop_fma4: 64 FFMAs a trip), so per PTX trip ~2-4 remain
    fetch_redirect: int = 4
    # instruction caches (timing/icache.py; benchmarks/timing/ifetch, results/ifetch_h200.json): a
    # loop body of 32.8 KB issues from the first level at full rate (1.55 cycles an instruction for
    # one warp, 1.46 for a 4 KB body), 40 KB not (2.78); bodies up to 96 KB stream from the
    # second level at 2.78 cycles an instruction for one warp, 22 cycles a 128-B line; straight
    # code of 256-512 KB at 5.0-5.4 (warm: from L2, 44 a line) and 10.3-11.7 (cold: DRAM, 94);
    # 128 KB once: 2.79 warm, 4.9 cold, which the flush's share of the second level explains
    icache_bytes: int = 36 * 1024
    icache_l15_bytes: int = 128 * 1024
    icache_l15_cycles: float = 22.0
    icache_l2_cycles: float = 44.0
    icache_dram_cycles: float = 94.0
    icache_cold_evict_bytes: int = 32 * 1024
    divergence_cycles: int = 0  # extra cycles when a branch splits a warp's lanes (BSSY/BSYNC bookkeeping)
    sreg_latency: int = 30  # S2R: reading %tid, %ctaid, ... into a register
    # ptxas schedules instructions; PTX order is not SASS order. While a warp's next instruction
    # waits, one of the next `issue_window` instructions of its basic block may issue if it is
    # independent of those it passes (0: strict PTX order).
    issue_window: int = 8
    # list-schedule each straight run of PTX as ptxas would (timing/schedule.py); False: PTX order
    list_schedule: bool = True
    # ... holding no more values live than the kernel has registers (timing/pressure.py; ptxas 13.5's
    # SASS of the Triton fp16 matmul loop at 254 registers: 30 of 64 loads before the first store)
    register_budget: bool = True
    fold_immediate_moves: bool = True  # mov of an immediate: no issue slot (folded or hoisted by ptxas)
    fold_logic: bool = True  # logic trees into LOP3, shl/shr/add rotates into SHF (timing/fusion.py)
    # shfl.sync: cycles to a dependent instruction (sass/latency.py shfl_idx: one warp's SHFL.IDX chain
    # 26.0 cycles a link, results/sass_latency_h200.json; it was the shared-memory load latency, 23)
    shfl_latency: float = 26.0
    mov_latency: int = 1  # mov of a register or an immediate (usually folded into its consumer)
    # issue interval (per sub-partition) of simple integer instructions: logic, shifts, compares,
    # min/max run on the 16-lane integer pipe (micro2 int_thr: LOP3, SHF, VIMNMX 2.04-2.06 cycles);
    # adds, subs and moves ptxas puts on it (IADD3) or on the FMA pipe as IMAD.IADD / IMAD.MOV at the
    # IMAD rate, balancing the two (adds alone: 1.07 cycles; timing/static.py)
    alu_interval: float = 2.0
    imad_add_interval: float = 2.0
    # operand collector: registers live in `reg_banks` banks; a third read of one bank costs a cycle,
    # the bank taken from the PTX register number. 1: no conflicts. ptxas allocates around them (2.4 %
    # of three-source FFMA/IMAD/DFMA in the suite's SASS have one, against 12.0 % by PTX numbers:
    # benchmarks/timing/sass/bank_conflicts.py), so a rule on PTX numbers charges the wrong ones
    reg_banks: int = 1
    # memory pipeline
    l1_wavefront_cycles: float = 1.0  # L1/shared data stage: cycles per wavefront (SM-wide)
    l1_line_cycles: float = 0.25  # the same stage per 128-B line of a global/local store or atomic
    # global/local loads pass the stage as wavefronts of the L1 data array (32 banks of 4 bytes, as
    # shared memory; micro2 l1_lines: 32 warps of L1-hitting loads whose n lines put their words in
    # the same banks cost n cycles per request per SM, n = 2..32); False: l1_line_cycles per line
    l1_load_wavefronts: bool = True
    lsu_queue_cycles: int = 16  # L1 backlog (cycles) beyond which memory instructions throttle
    dram_efficiency: float = 1.0  # achievable fraction of dram_bytes_per_s
    dram_write_cost: float = 1.5  # DRAM time of a written sector in read sectors (bus turnaround, ECC)
    # extra DRAM latency at full utilization (queues in the memory system), linear in the DRAM
    # server's recent utilization (micro2 dram_occupancy: streams of 1-32 warps/SM x 1-4 float4 in
    # flight reach 0.35-4.4 TB/s; 450 reproduces them within 8 %)
    dram_loaded_latency: float = 450.0
    # reads share the DRAM bus with write-backs: a read waits longer the more of the SM's recent
    # DRAM time went to writing dirty lines back (the cold convention's memset leaves half the L2
    # dirty, so a launch's first ~50 MB of fills evict dirty lines), this many cycles more when
    # write-backs fill the window (utilization as dram_loaded_latency's). Pinned by cpasync5
    # (results/cpasync5_*_h200.json): see docs/timing-model.md section 3, "DRAM write-backs and
    # read latency"; 0: none
    dram_writeback_latency: float = 450.0
    # a load whose lines come from DRAM waits for the slowest of them: per doubling of the
    # request's DRAM lines (memory/dram.py; micro3 chase: 32 lines of one warp 418 cycles after one)
    dram_tail_cycles: float = 74.0
    # ... counting the DRAM lines of all the warp's loads still in flight, not one request's
    # (benchmarks/timing/loaded, results/micro4_loaded_h200.json: one warp per SM, K independent
    # 1-line loads from DRAM: K = 1/2/4/8/16 cost 500 / 553 / 683 / 701 / 813 cycles more per round
    # than from L2, i.e. about 74 x log2(K) beyond K = 1); False: per request
    dram_tail_per_warp: bool = True
    # the simulated SM stands for the slowest busy SM (timing/slowest.py): its L2 hits and DRAM
    # accesses take this many cycles longer than a typical SM's when every SM is busy
    # (benchmarks/timing/loaded: 132 SMs x 1 warp x 1 load in flight, the slowest CTA's cycles per
    # round minus the median CTA's, median over the strides 4 B..4 KiB)
    # an L1 miss holds an L1 line until its fill is back, so the lines an SM has in flight are at
    # most the L1's lines beside the shared-memory carveout (benchmarks/timing/loaded --carveout,
    # results/micro4_loaded_carveout_h200.json: 8 warps x 16 loads of 32 lines per SM, 4 KiB lanes:
    # with 100 or 200 KiB of shared memory per CTA (the 228 KiB carveout, a 28 KiB L1: 224 lines)
    # a round costs 1.2x (L2) / 1.67x (DRAM) what it costs with none; with 160 KiB (164 KiB carveout,
    # a 92 KiB L1) as with none); False: no limit
    l1_miss_lines: bool = True
    slowest_sm_l2_cycles: float = 16.3
    slowest_sm_dram_cycles: float = 82.6
    # the L1's miss path: cycles per 128-B line request sent to L2 (micro2 loaded_latency: with every
    # lane chasing its own L2-resident chain an SM gets 0.62 line requests per cycle; one warp's 32
    # lines cost 60 cycles more than one line)
    l2_request_cycles: float = 1.6
    l2_efficiency: float = 1.0  # achievable fraction of l2_bytes_per_clk
    # global atomics (timing/atomics.py; micro2 atomics.cu, results/micro2_atomics_h200.json). A
    # warp's request is split into packets, per 32-B sector one per lane on its most-used address.
    # The SM sends a request in `atomic_request_cycles` + `atomic_packet_cycles` per packet
    # (`sm`: 32 warps on their own lines: 2.0 cycles per 1-lane request, 5.0 per coalesced one
    # (4 packets), 32 per request of 32 lines or of 32 lanes on one address)
    atomic_request_cycles: float = 1.0
    atomic_packet_cycles: float = 1.0
    # a sub-partition's LSU pipe sends one global atomic per `atomic_issue_cycles` (`warp`: one
    # warp's red loop 7.8 cycles per request; `sm`: 32 warps, 8 per sub-partition, 64 cycles)
    atomic_issue_cycles: float = 7.8
    # the L2 slice's atomic unit: SM cycles per packet (`gpu` and `sm`, one address: red/atom.add.u32
    # 0.69 operations per cycle GPU-wide whether from 1 or 32 lanes of each warp); float updates of
    # one word follow each other at `atomic_float_pass_cycles` (red.add.f32 on one address 0.29 per
    # cycle; f32 on distinct words of a line as fast as u32)
    atomic_pass_cycles: float = 1.45
    atomic_float_pass_cycles: float = 3.47
    # slices with an atomic unit, lines spread over them by a hash (`gpu`, spread over 1 to 8448
    # lines: at most 40-49 packets per cycle GPU-wide = slices / atomic_pass_cycles)
    l2_atomic_slices: int = 64
    # cycles from an atom's issue to its value, one lane, idle L2: 284 when the line's home is the
    # SM's L2 partition (`latency`, this buffer), 521 in the other (micro 2026-11-22, the same chain
    # on another buffer); the model does not know a line's home: the mean of the two
    atomic_round_trip: float = 402.0
    # L1/shared data-stage cycles per wavefront of a shared atomic (micro2 atom_shared_ways: 32 warps
    # of red.shared take 1.0 cycle per warp-request conflict-free or all on one address, n per n-way conflict)
    shared_atomic_cycles: float = 1.0
    # shared atomics that ptxas makes a compare-and-swap loop (64-bit arithmetic, float adds:
    # timing/shared_cas.py; benchmarks/timing/cas): one trip round the loop (LDS, add, ATOMS.CAST)
    # for a warp alone, 112-113 cycles (u64/f64, lanes on one word or on 32); each update holds
    # the words of its request this long per 128 B of them (8 warps on one word: 57 cycles an
    # update; on the same 32 words of 8 B, a word per lane: 884 cycles a round of the 8 warps)
    shared_cas_round_cycles: float = 112.0
    shared_cas_pass_cycles: float = 56.0
    # the SM's constant port (docs/timing-model.md section 3, "Constant memory"; constmem const.cu,
    # results/micro4_const_h200*.json): cycles it is busy with a warp's ld.const (LDC or ULDC)...
    const_first_pass: float = 2.0  # (tput: 32 warps of LDC, one address, 2.02 cycles per request)
    const_pass_cycles: float = 2.0  # ... per further distinct address (tput k = 2..32: 2.0 each)
    # ... per line an LDC brings from the L1.5 (a first-level miss): 20.5 from the calibration case
    # const_scattered (32 lanes on 32 lines of a 16 KiB table, 721 cycles per request = 2 x 32 +
    # 32 x 20.5); constmem tput_miss's 32 lines 512 B apart (one first-level set) cost 12.0 each
    const_fetch_cycles: float = 20.5
    # ... per line a ULDC brings from the L1.5 (stream_warps: 4-16 warps that each read a new line
    # per load, one fetch per sub-partition: 128 cycles per load = 4 x (2 + 30))
    uconst_fetch_cycles: float = 30.0
    # L2 time of a store request, per 128-B line it writes and per sector, in read sectors: the L2
    # takes a line-write as ~2 cycles plus ~1.5 per sector written, whole or in part, where it
    # serves a read sector in 0.9 (micro2 store_lines, 1024 threads per SM: full lines 0.10 per
    # cycle per SM, lines of one whole or one partly written sector 0.27; micro3 cold_state: 16-64
    # MiB store streams at 4.0-4.4 TB/s, i.e. 2.2 read sectors per stored sector)
    l2_store_line_cost: float = 2.2
    l2_store_sector_cost: float = 1.7
    # warpgroup MMA: cycles from a group's last wgmma issue to its completion beyond the N/2 cycles
    # of tensor-pipe time (micro2 wg_*_k1: fence + one m64nN wgmma + commit + wait = 62.6 + N/2)
    wgmma_latency: float = 56.0
    # asynchronous copies and mbarriers (micro2 async, results/async_h200.json; docs/timing-model.md)
    # cp.async: cycles from its data's return to its group counting as complete (chase: a 16-B
    # cp.async + wait_group 0 + ld.shared step costs 326.5 cycles from L2, a dependent ld 291)
    cp_async_complete: float = 12.0
    # the TMA engine: cycles per 128-B line request of a bulk copy (chase: an 8 KiB cp.async.bulk
    # from L2 takes 426 cycles a step, a 16-B one 341, a 1 KiB one 358) and its fixed extra latency
    tma_line_cycles: float = 1.35
    tma_latency: float = 6.0
    # mbarrier: an arrival (or tx update) reaches the object `mbar_arrive_latency` after issue, the
    # object takes one per `mbar_arrive_cycles`; try_wait / test_wait answer `mbar_wait_latency`
    # after issue or after the phase completed (round trip arrive + try_wait of one CTA: 52 / 59 /
    # 84.5 cycles with 1 / 4 / 8 warps arriving; the bulk chase: +50 cycles over a load's step)
    mbar_arrive_latency: float = 26.0
    mbar_arrive_cycles: float = 4.0
    mbar_wait_latency: float = 20.0
    # CTA scheduling
    cta_launch: int = 250  # cycles from a CTA slot freeing to the next CTA's first issue
    # the GPU's CTA dispatcher: cycles per CTA over the whole GPU (micro2 launch: 33792 empty
    # CTAs of 256 threads take 23.0 us, 8448 take 7.84 us, 1 takes 2.72 us: 0.60 ns per CTA)
    cta_dispatch_cycles: float = 1.19
    # cycles from launch to the first CTA plus after the last one, as CUDA events around one
    # launch queued behind other work see it: the timing suite's own empty kernel (calibration
    # case launch_empty, 1 CTA, back to back: median 3.31 us of 30; micro2's launch item, timed in a
    # separate call with one spin kernel per launch, saw 2.72-2.88 us). A cold launch adds the
    # first instruction fetch from DRAM (profile.launch_cycles: 3.50 us against 3.55 measured)
    kernel_launch: int = 6558
    barrier_extra: int = 0  # cycles added to GpuSpec.latency["barrier"] per bar.sync release
    # bar.sync: the SM's barrier unit takes one warp arrival per `barrier_arrival_cycles` (all CTAs
    # share it); a CTA's barrier releases GpuSpec.latency["barrier"] + `barrier_release_per_warp`
    # x (warps - 1) after its last arrival was taken. micro2 barrier_multi: 15.6 / 29.6 / 77.7
    # cycles per barrier for 1 CTA of 1 / 8 / 32 warps; 8 CTAs of 8 warps 97-134; 32 CTAs of 1 warp 61
    barrier_arrival_cycles: float = 1.5
    barrier_release_per_warp: float = 0.5
    # clusters (micro2 cluster.cu, results/micro2_cluster_h200.json; docs/timing-model.md "Clusters").
    # Distributed shared memory: ptxas turns ld/st/atom/red.shared::cluster into generic LD/ST/ATOM,
    # so they wait on the long scoreboard. One thread's dependent chain (`chase`, each step an add
    # and the access): another CTA's shared memory 207.5-212.5 cycles a step for ld whatever the
    # cluster size (2-16) and rank, 217.5 for atom.add; the own CTA through the cluster window 37.25
    # (ld) / 37 (atom), through ld.shared::cta 23. The model's step adds ~6 cycles to the latency.
    dsmem_latency: float = 204.0
    dsmem_atomic_latency: float = 211.0
    dsmem_own_latency: float = 31.0
    # the SM's traffic to other SMs' shared memory passes its data stage at this many bytes per
    # cycle (`stream`, results/micro2_cluster_stream_h200.json, 32 warps of one CTA per SM, 4
    # independent accesses a thread: st.shared::cluster to the next rank 20.4 B/clk per SM with 4 or
    # 16 B a lane, for clusters of 2-8, 17-18 with all SMs busy or 16 CTAs; red.add 9.5). Loads
    # are taken at the store rate: the ld items, which read the same 4 addresses every iteration,
    # ran at the local rate (110-186 B/clk), which no SM-to-SM link carries, so they say nothing of
    # fresh data; calibration cluster_ring2's reads of new data run at ~16 B/clk per SM. Not
    # modelled: the receiving SM's limit when many CTAs write to one (all onto rank 0: ~40 B/clk
    # in total for 2-4 CTAs, 34 for 16), as the model simulates only the sending SM
    dsmem_bytes_per_clk: float = 20.4
    dsmem_atomic_bytes_per_clk: float = 9.5
    # barrier.cluster.arrive.relaxed + wait (`bar`, one CTA per SM): 59.75 / 63.75 / 67.75 / 71.75
    # cycles a round with 1 warp per CTA for 2 / 4 / 8 / 16 CTAs per cluster, 45 + 4 x log2(CTAs)
    # more than bar.sync with 1 or 8 warps (bar.sync 14.6 / 28.6; relaxed 8 warps 73.75 .. 85.7);
    # 32 warps 131-134.5 (bar.sync 76.6). A wait releases this long after the CTA's phase
    # completed, beyond the bar.sync release.
    cluster_barrier_cycles: float = 41.0
    cluster_barrier_per_doubling: float = 4.0
    # barrier.cluster.arrive without .relaxed (release semantics) is MEMBAR.ALL.GPU + UCGABAR_ARV
    # in SASS: 323.7 / 353.4 / 612.5 cycles a round with 1 / 8 / 32 warps (2 CTAs; 338.9 / 380.5 /
    # 639.5 with 16): the fence takes ~265 cycles for one warp, and the SM passes one warp's fence
    # per ~7 cycles (32 warps: 481 cycles more than relaxed)
    cluster_fence_latency: float = 265.0
    cluster_fence_interval: float = 7.0

    def with_(self, **changes) -> "ModelParams":
        return replace(self, **changes)

    def with_text(self, text: str) -> "ModelParams":
        """These parameters changed as `text` says: "name=value,..." (a switch: 0/false is off),
        the form the microbenchmarks' predict.py scripts take on their command line (--set)."""
        params = self
        for item in filter(None, text.split(",")):
            name, value = item.split("=")
            kind = type(getattr(self, name))
            params = params.with_(**{name: value not in ("0", "false") if kind is bool else kind(float(value))})
        return params


DEFAULT = ModelParams()
