# METADATA
# title: Address ranges
# description: >-
#   Whether a list of CIDRs admits the whole internet: every publicly routable IPv4 address, or
#   every IPv6 global unicast address (2000::/3). 0.0.0.0/0 and ::/0 do, and so do ranges that
#   only together cover it (0.0.0.0/1 with 128.0.0.0/1), with or without the private and other
#   special-purpose ranges, which are not the internet.
# scope: package
package lib.cidr

# every address of each family, as it is usually written
world := {"0.0.0.0/0", "::/0"}

# internet holds when the CIDRs in cidrs (an array or set; other values are ignored) together
# cover every public IPv4 address or every global unicast IPv6 address
internet(cidrs) if {
	some c in cidrs
	c in world # the usual case, settled without parsing
} else if {
	_covers(_v4(cidrs), _v4_not_internet)
} else if {
	_covers(_v6(cidrs), _v6_not_internet)
}

# broad holds for a CIDR of at least /10 (IPv4) or /12 (IPv6), the least a list that covers the
# internet needs among 1,000 ranges (the most a security group holds)
broad(c) if {
	is_string(c)
	net.cidr_is_valid(c)
	to_number(split(c, "/")[1]) <= _broadest[contains(c, ":")]
}

_broadest := {false: 10, true: 12}

# Intervals of 32-bit numbers. IPv4: the address. IPv6: its first 32 bits, so a range longer than
# /32 (at most 2^96 addresses of the 2^125 in 2000::/3) is left out: covering 2000::/3 with such
# ranges would take more than half a billion of them.
_v4(cidrs) := [[start, start + size - 1] |
	some c in cidrs
	is_string(c)
	not contains(c, ":")
	net.cidr_is_valid(c)
	parts := split(c, "/")
	size := bits.lsh(1, 32 - to_number(parts[1]))
	o := split(parts[0], ".")
	ip := ((((to_number(o[0]) * 256) + to_number(o[1])) * 256) + to_number(o[2])) * 256 + to_number(o[3])
	start := ip - (ip % size)
]

_v6(cidrs) := [[start, start + size - 1] |
	some c in cidrs
	is_string(c)
	contains(c, ":")
	net.cidr_is_valid(c)
	parts := split(c, "/")
	prefix := to_number(parts[1])
	prefix <= 32
	size := bits.lsh(1, 32 - prefix)
	ip := _v6_top(parts[0])
	start := ip - (ip % size)
]

# the first two 16-bit groups of an IPv6 address; the groups a leading "::" (or one after the
# first group) leaves out are zero
_v6_top(address) := (_hex(groups[0]) * 65536) + _hex(groups[1]) if {
	head := split(address, "::")[0]
	groups := array.concat([g | some g in split(head, ":"); g != ""], ["0", "0"])
}

_hex(group) := sum([(indexof("0123456789abcdef", substring(g, k, 1)) * bits.lsh(1, 4 * ((n - 1) - k))) |
	g := lower(group)
	n := count(g)
	some k in numbers.range(0, n - 1)
])

# The special-purpose IPv4 ranges that are not globally reachable (IANA IPv4 Special-Purpose
# Address Registry: "this network", private-use, shared address space, loopback, link-local,
# IETF protocol assignments, documentation, benchmarking) plus multicast and the reserved 240/4.
_v4_special := [
	"0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
	"192.0.0.0/24", "192.0.2.0/24", "192.168.0.0/16", "198.18.0.0/15", "198.51.100.0/24",
	"203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4",
]

_v4_not_internet := _v4(_v4_special)

# public holds for a CIDR that holds some public address: an IPv4 range outside every range
# above, or an IPv6 range that meets 2000::/3
public(c) if {
	is_string(c)
	not contains(c, ":")
	net.cidr_is_valid(c)
	every special in _v4_special {
		not net.cidr_contains(special, c)
	}
} else if {
	is_string(c)
	contains(c, ":")
	net.cidr_is_valid(c)
	_nested(c, "2000::/3") # two CIDR blocks meet only when one holds the other
}

_nested(a, b) if net.cidr_contains(a, b)

_nested(a, b) if net.cidr_contains(b, a)

# outside 2000::/3, in the first 32 bits
_v6_not_internet := [[0, 536870911], [1073741824, 4294967295]]

# The given intervals and the fixed ones (not the internet) cover every 32-bit number: every
# interval that ends before the last number is continued by one that holds its next number (the
# first number none holds would otherwise follow some interval's end; 0 is held, as both fixed
# lists start there). The sum of the given sizes is a necessary condition, checked first: it
# rules out almost every list without comparing intervals.
_covers(given, fixed) if {
	count(given) > 0
	sum([((i[1] - i[0]) + 1) | some i in given]) >= 4294967296 - sum([((i[1] - i[0]) + 1) | some i in fixed])
	every_interval := array.concat(given, fixed)
	every i in every_interval {
		_continued(i, every_interval)
	}
}

_continued(i, _) if i[1] >= 4294967295

_continued(i, intervals) if {
	some j in intervals
	j[0] <= i[1] + 1
	i[1] + 1 <= j[1]
}
