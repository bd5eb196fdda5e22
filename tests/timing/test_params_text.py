"""ModelParams.with_text: the --set form of the microbenchmarks' predict.py scripts."""


def test_model_parameters_from_text():
    from ptxvm.timing.params import DEFAULT

    p = DEFAULT.with_text("l1_miss_lines=0,dram_writeback_latency=300")
    assert p.l1_miss_lines is False and p.dram_writeback_latency == 300.0 and DEFAULT.with_text("") == DEFAULT
