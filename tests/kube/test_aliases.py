"""YAML anchors and aliases in manifests, read as kubectl reads them (issue 34, item 1).

go-yaml's rule (``decode.go``, ``allowedAliasRatio``): at most 99% of a document's
nodes may come from aliases up to 400,000 nodes, 10% from 4,000,000.
"""

from __future__ import annotations

import pytest
import yaml

from t2gen.kube.aliases import MAX_ALIAS_NODES, alias_expansion, allowed_alias_ratio
from t2gen.kube.yamlio import KubeLoader


def _compose(text: str) -> yaml.Node:
    loader = KubeLoader(text)
    try:
        node = loader.get_single_node()
    finally:
        loader.dispose()
    assert node is not None
    return node


def _load_all(text: str) -> list[object]:
    return list(yaml.load_all(text, Loader=KubeLoader))


def test_expansion_is_counted_as_kubectl_counts_it() -> None:
    # {a: [x, y], b: *list}: 1 map + 2 keys + 1 list + 2 items, then the alias (1) and
    # its expansion (3 nodes, all alias-driven).
    assert alias_expansion(_compose("a: &l [x, y]\nb: *l\n")) == (10, 3)
    assert alias_expansion(_compose("a: [x, y]\n")) == (5, 0)
    # Nested aliases count inside the expansion of the outer one.
    assert alias_expansion(_compose("a: &a [x]\nb: &b [*a, *a]\nc: *b\n")) == (21, 11)


def test_ratio_is_go_yamls() -> None:
    assert allowed_alias_ratio(1000) == allowed_alias_ratio(400_000) == 0.99
    assert allowed_alias_ratio(4_000_000) == allowed_alias_ratio(10**9) == 0.10
    assert allowed_alias_ratio(2_200_000) == pytest.approx(0.545)


def test_anchors_aliases_and_merge_keys_read_as_values() -> None:
    text = (
        "metadata:\n  labels: &l {app: web}\nspec:\n  selector: {matchLabels: *l}\n"
        "  requests: &r {cpu: 1m, memory: 1Mi}\n  limits: {<<: *r, memory: 2Mi}\n"
    )
    (document,) = _load_all(text)
    assert document == {
        "metadata": {"labels": {"app": "web"}},
        "spec": {
            "selector": {"matchLabels": {"app": "web"}},
            "requests": {"cpu": "1m", "memory": "1Mi"},
            "limits": {"cpu": "1m", "memory": "2Mi"},
        },
    }


def test_a_key_the_mapping_itself_repeats_is_still_a_duplicate() -> None:
    with pytest.raises(yaml.constructor.ConstructorError, match="duplicate key 'a'"):
        _load_all("x: &x {a: 1}\ny: {<<: *x, a: 2, a: 3}\n")


def test_an_alias_inside_its_own_anchor_is_refused() -> None:
    with pytest.raises(
        yaml.constructor.ConstructorError, match="inside the node it names"
    ):
        _load_all("a: &a\n  b: *a\n")


def test_excessive_aliasing_is_refused_before_anything_is_built() -> None:
    level = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    previous = "a"
    for name in "bcdefghi":
        level += f"{name}: &{name} [{','.join(['*' + previous] * 9)}]\n"
        previous = name
    with pytest.raises(yaml.constructor.ConstructorError, match="excessive aliasing"):
        _load_all(level)


def test_a_stream_of_many_small_expansions_is_capped() -> None:
    # Each document: 2,000 alias-driven nodes out of about 2,030 (allowed alone).
    one = "a: &a [" + ",".join(["x"] * 99) + "]\nb: [" + ",".join(["*a"] * 20) + "]\n"
    documents = MAX_ALIAS_NODES // 2000 + 1
    assert len(_load_all(one)) == 1
    with pytest.raises(
        yaml.constructor.ConstructorError, match="more than 400,000 nodes"
    ):
        _load_all("---\n".join([one] * documents))
