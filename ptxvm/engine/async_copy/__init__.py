"""Asynchronous copies: cp.async and the bulk copies (copies), mbarrier, the tensor copies (tensor),
tensor maps and their layout, tensormap.replace (tensormap)."""
