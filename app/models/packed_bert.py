"""The transformer member's forward on a CPU with bfloat16 in hardware.

`transformers`' BERT under ``torch.autocast`` casts every weight and most
activations at every call and reads weights in torch's own layout; the
CPU's matrix units (AMX) read a blocked layout of their own. This forward
holds each linear layer's weights once, in bfloat16, packed for oneDNN
(``torch.ops.mkldnn._reorder_linear_weight``), runs the three attention
projections as one product and GELU fused into the first feed-forward one,
and keeps the whole network in bfloat16. On a PhysioNet fold's member it
tags 1.3 to 1.8 times as fast on one core, calling the same tokens
identifiers (BENCHMARKS.md), and a model loads without importing
`transformers`.

Prediction only: a fit trains `transformers`' network, whose weights this
reads by their names (`state_dict` gives them back as they were).
"""
from __future__ import annotations

from typing import Any

#: Rows a packed weight is laid out for (16 windows of 256 pieces); any
#: other number of rows is read correctly.
_PACK_ROWS = 16 * 256


def packed_products() -> bool:
    """True when this torch has oneDNN's packed products (CPU builds do)."""
    import torch

    return (torch.backends.mkldnn.is_available()
            and hasattr(torch.ops.mkldnn, "_linear_pointwise")
            and hasattr(torch.ops.mkldnn, "_reorder_linear_weight"))


def can_pack(network_config: dict[str, Any]) -> bool:
    """True when this forward computes the network (BERT with exact GELU)
    and this torch has the packed products."""
    return (network_config.get("hidden_act") == "gelu"
            and network_config.get("model_type", "bert") == "bert" and packed_products())


class PackedBert:
    """``BertForTokenClassification``'s forward (no dropout: prediction) over
    ``state`` (its weights by name) and ``network_config`` (its config)."""

    def __init__(self, state: dict, network_config: dict[str, Any]) -> None:
        import torch

        self._state = state
        self.num_labels = int(network_config["num_labels"])
        self.heads = int(network_config["num_attention_heads"])
        self.eps = float(network_config["layer_norm_eps"])
        bf = torch.bfloat16

        def w(name: str):
            # detached: a fit hands over its live weights for a dev pass.
            return state[name].detach().to(bf).contiguous()

        def packed(weight):
            return torch.ops.mkldnn._reorder_linear_weight(weight, _PACK_ROWS)

        e = "bert.embeddings."
        self.word = w(e + "word_embeddings.weight")
        self.position = w(e + "position_embeddings.weight")
        self.token_type = w(e + "token_type_embeddings.weight")
        self.norm = (w(e + "LayerNorm.weight"), w(e + "LayerNorm.bias"))
        self.layers = []
        for i in range(int(network_config["num_hidden_layers"])):
            p = f"bert.encoder.layer.{i}."
            a = p + "attention.self."
            qkv = ("query", "key", "value")
            self.layers.append((
                packed(torch.cat([w(f"{a}{n}.weight") for n in qkv])),
                torch.cat([w(f"{a}{n}.bias") for n in qkv]),
                packed(w(p + "attention.output.dense.weight")), w(p + "attention.output.dense.bias"),
                w(p + "attention.output.LayerNorm.weight"), w(p + "attention.output.LayerNorm.bias"),
                packed(w(p + "intermediate.dense.weight")), w(p + "intermediate.dense.bias"),
                packed(w(p + "output.dense.weight")), w(p + "output.dense.bias"),
                w(p + "output.LayerNorm.weight"), w(p + "output.LayerNorm.bias")))
        self.classifier = (w("classifier.weight"), w("classifier.bias"))

    def state_dict(self) -> dict:
        """The weights it was built from, by `transformers`' names."""
        return dict(self._state)

    def logits(self, ids, mask, types=None):
        """Tag logits (float32) of ``ids`` (windows x pieces) where ``mask``
        marks the real pieces, each piece of token type ``types`` (None:
        type 0, as MiniLM reads every piece)."""
        import torch
        import torch.nn.functional as F

        linear = torch.ops.mkldnn._linear_pointwise
        rows, width = ids.shape
        hidden = self.word.shape[1]
        heads, size = self.heads, hidden // self.heads
        kind = self.token_type[0] if types is None else self.token_type[types]
        x = F.layer_norm(self.word[ids] + kind + self.position[:width], (hidden,),
                         *self.norm, self.eps)
        keep = mask.bool()[:, None, None, :]
        for (qkv_w, qkv_b, out_w, out_b, norm1_w, norm1_b,
             up_w, up_b, down_w, down_b, norm2_w, norm2_b) in self.layers:
            q, k, v = linear(x, qkv_w, qkv_b, "none", [], "").view(
                rows, width, 3, heads, size).permute(2, 0, 3, 1, 4)
            att = F.scaled_dot_product_attention(q, k, v, attn_mask=keep)
            att = att.transpose(1, 2).reshape(rows, width, hidden)
            x = F.layer_norm(x + linear(att, out_w, out_b, "none", [], ""), (hidden,),
                             norm1_w, norm1_b, self.eps)
            up = linear(x, up_w, up_b, "gelu", [], "none")          # exact GELU, as BERT's
            x = F.layer_norm(x + linear(up, down_w, down_b, "none", [], ""), (hidden,),
                             norm2_w, norm2_b, self.eps)
        return F.linear(x, *self.classifier).float()
