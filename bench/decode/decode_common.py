"""A LLaMA-7B-shaped causal LM decoding one token against a static KV cache, and its torch.export
archive: the shared harness's seeded model (`llama7b_common.make_model`, lm=True) wrapped so that
the cache is module buffers that each step updates in place (Hugging Face's static cache, the way
`transformers.integrations.executorch` exports it). The exported program lists the caches as
buffers to mutate. Shared by bench/decode/export.py and bench/decode/bench.py."""
import torch


def _exportable(model, cache_len):
    """Hugging Face's export wrapper with a static cache of `cache_len` positions, over the API of
    whichever transformers is installed."""
    from transformers import GenerationConfig
    from transformers.integrations.executorch import TorchExportableModuleWithStaticCache
    model.generation_config = GenerationConfig(
        use_cache=True, cache_implementation="static", max_length=cache_len,
        cache_config={"batch_size": 1, "max_cache_len": cache_len, "device": "cuda"})
    try:
        return TorchExportableModuleWithStaticCache(model, batch_size=1, max_cache_len=cache_len,
                                                    device=torch.device("cuda"))
    except TypeError:  # before the size arguments existed
        return TorchExportableModuleWithStaticCache(model)


def _bind_cache_to_buffers(dec):
    """Makes the cache's layers read and write their tensors (keys, values, length counter)
    through `dec`'s buffers. Non-strict export swaps a module's buffers for traced ones, but the
    cache object still holds the original tensors, which export then lifts as constants and cannot
    mutate. Returns the tensors found, for the record."""
    names = {id(b): n for n, b in dec.named_buffers()}
    found = []
    cache = getattr(dec, "static_cache", None)
    for i, layer in enumerate(getattr(cache, "layers", [])):
        bound = {}
        for attr, value in list(vars(layer).items()):
            if not isinstance(value, torch.Tensor):
                continue
            name = names.get(id(value))
            if name is None:
                name = f"cache_{i}_{attr}"
                dec.register_buffer(name, value, persistent=False)
            found.append((i, attr, name, list(value.shape), str(value.dtype)))
            bound[attr] = name
            del layer.__dict__[attr]
        props = {attr: property(lambda self, n=name: dec._buffers[n],
                                lambda self, v, n=name: dec._buffers.__setitem__(n, v))
                 for attr, name in bound.items()}
        layer.__class__ = type(type(layer).__name__, (type(layer),), props)
    return found


def make_decoder(make_model, layers, cache_len=4096, filled=None, seed=1):
    """The decoder module (forward(input_ids, cache_position) -> logits) with its cache holding
    `filled` positions (default cache_len - 1) of a seeded random prompt, run as one prefill, and
    a description of the cache's tensors."""
    lm = make_model(layers, lm=True).m
    dec = _exportable(lm, cache_len).eval()
    filled = cache_len - 1 if filled is None else filled
    g = torch.Generator(device="cuda").manual_seed(seed)
    prompt = torch.randint(0, 32000, (1, max(filled, 1)), device="cuda", generator=g)
    with torch.no_grad():
        dec(input_ids=prompt, cache_position=torch.arange(prompt.shape[1], device="cuda"))
    found = _bind_cache_to_buffers(dec)
    if not filled:
        for b in dec.buffers():
            if b.dtype in (torch.bfloat16, torch.float16, torch.float32) and b.dim() == 4:
                b.zero_()
    return dec, filled, found


def step_inputs(position, seed=2):
    g = torch.Generator(device="cuda").manual_seed(seed)
    ids = torch.randint(0, 32000, (1, 1), device="cuda", generator=g)
    return ids, torch.tensor([position], device="cuda")


def export_step(dec, position, path, log=None):
    """Exports one decode step at `position` (core ATen, scrubbed like the shared fixtures) and
    saves it; the archive holds the cache as it is now. The ways tried, in order, and why each
    failed, go into `log`."""
    ids, pos = step_inputs(position)
    for p in dec.parameters():
        p.requires_grad_(False)
    ways = [("non_strict", False), ("strict", True)]
    ep = None
    for name, strict in ways:
        try:
            with torch.no_grad():
                ep = torch.export.export(dec, (), {"input_ids": ids, "cache_position": pos},
                                         strict=strict)
                if log is not None and "training_ir" not in log:
                    log["training_ir"] = str(ep.graph_module.code)
                ep = ep.run_decompositions()
            if log is not None:
                log["way"] = name
            break
        except Exception as e:  # noqa: BLE001 - recorded, the next way is tried
            ep = None
            if log is not None:
                log.setdefault("failed", {})[name] = repr(e)[-2000:]
    if ep is None:
        raise RuntimeError("no way of exporting worked")
    for n in ep.graph_module.graph.nodes:
        for k in ("stack_trace", "source_fn_stack", "from_node", "nn_module_stack", "torch_fn"):
            n.meta.pop(k, None)
    torch.export.save(ep, path)
    return ep
