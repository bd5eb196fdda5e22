"""The machine every instruction family builds on: scheduler and contexts (machine), flat and windowed
memories (memory), the device's global memory and object registry (device), its memory budget
(budget), the hooks tools subscribe to (hooks), operand readers/writers (operands), register and
variable layout (layout), initializers, special registers (sregs)."""
