"""The rows of the instruction table, one module per family. Importing this package registers them
all in ptxvm.isa.table.FORMS (in this order)."""
from . import (  # noqa: F401
    integer,
    extended,
    floating,
    half,
    compare,
    logic,
    convert,
    memory,
    control,
    sync,
    warp,
    atomic,
    matrix,
    async_copy,
    texture,
    video,
    misc,
)
