"""``cidr_problem``: a NetworkPolicy block as the API server writes it (rule network-policy-cidr, issue 41)."""

from __future__ import annotations

import ipaddress

from hypothesis import given
from hypothesis import strategies as st

from t2gen.jobfile.rules.isolation import cidr_problem

_IPV6 = st.builds(
    lambda address, length: ipaddress.IPv6Network((address, length), strict=False),
    st.integers(0, 2**128 - 1),
    st.integers(0, 128),
).filter(lambda block: block.network_address.ipv4_mapped is None)


@given(_IPV6)
def test_an_ipv6_block_is_taken_only_in_rfc_5952_form(
    block: ipaddress.IPv6Network,
) -> None:
    assert cidr_problem(str(block)) is None
    for other in (block.exploded, block.exploded.upper(), str(block).upper()):
        if other != str(block):
            said = cidr_problem(other)
            assert said is not None and said.endswith(f"write {str(block)!r}"), other


@given(st.integers(0, 2**32 - 1), st.integers(96, 128))
def test_an_ipv4_mapped_block_is_refused_with_its_ipv4_block(
    address: int, length: int
) -> None:
    block = ipaddress.IPv6Network(((0xFFFF << 32) | address, length), strict=False)
    said = cidr_problem(str(block))
    assert said is not None and "IPv4-mapped IPv6 block" in said
    ipv4 = ipaddress.IPv4Network((block.network_address.ipv4_mapped, length - 96))
    assert said.endswith(f"write the IPv4 block {ipv4}")


def test_the_issue_s_examples() -> None:
    assert cidr_problem("2001:DB8::/32") == (
        "'2001:DB8::/32' is not in RFC 5952 canonical form, which the API server warns "
        "of and writes back changed: write '2001:db8::/32'"
    )
    assert "write '2001:db8::/32'" in (cidr_problem("2001:0db8::/32") or "")
    assert "1.2.3.4/32" in (cidr_problem("::ffff:1.2.3.4/128") or "")
    assert "10.0.0.0/8" in (cidr_problem("::ffff:10.0.0.0/104") or "")
    assert cidr_problem("10.0.0.0/8") is None and cidr_problem("fd00::/64") is None
