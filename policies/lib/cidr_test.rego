package lib.cidr_test

import data.lib.cidr

# every public IPv4 address, in blocks that skip 0/8, 10/8, 127/8 and 224/3
_public_v4 := [
	"1.0.0.0/8", "2.0.0.0/7", "4.0.0.0/6", "8.0.0.0/7", "11.0.0.0/8", "12.0.0.0/6", "16.0.0.0/4",
	"32.0.0.0/3", "64.0.0.0/3", "96.0.0.0/4", "112.0.0.0/5", "120.0.0.0/6", "124.0.0.0/7",
	"126.0.0.0/8", "128.0.0.0/2", "192.0.0.0/3",
]

test_cidr_the_whole_space_is_the_internet if {
	cidr.internet(["10.0.0.0/8", "0.0.0.0/0"])
	cidr.internet({"::/0"})
	cidr.internet(["203.0.113.7/0"]) # any address with prefix 0
}

test_cidr_ranges_that_together_cover_it_are_the_internet if {
	cidr.internet(["0.0.0.0/1", "128.0.0.0/1"])
	cidr.internet(["128.0.0.0/1", "0.0.0.0/2", "64.0.0.0/2"]) # in any order
	cidr.internet(["1.2.3.4/1", "200.0.0.0/1"]) # host bits set: the block they fall in
	cidr.internet(_public_v4)
	cidr.internet(["::/1"]) # holds 2000::/3
	cidr.internet(["2000::/4", "3000:0:0::/4"])
	cidr.internet(["2000::/3"])
}

test_cidr_ranges_with_a_gap_are_not_the_internet if {
	not cidr.internet(["0.0.0.0/1"])
	not cidr.internet(["0.0.0.0/1", "128.0.0.0/2"])
	not cidr.internet([c | some c in _public_v4; c != "126.0.0.0/8"])
	not cidr.internet(["2000::/4", "3000::/5"])
	not cidr.internet(["8000::/1"]) # 2000::/3 lies in the other half
	not cidr.internet(["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"])
}

test_cidr_what_cannot_be_read_covers_nothing if {
	not cidr.internet([])
	not cidr.internet(["everywhere", 0, null, "1.2.3.4", "300.0.0.0/1", "0.0.0.0/33"])
	not cidr.internet(["2001:db8::/33"]) # longer than /32: left out
}

test_cidr_broad_ranges_are_those_a_cover_within_a_security_group_needs if {
	cidr.broad("0.0.0.0/1")
	cidr.broad("52.0.0.0/10")
	not cidr.broad("52.0.0.0/11")
	cidr.broad("2000::/12")
	not cidr.broad("2000::/13")
	not cidr.broad("x/1")
	not cidr.broad(8)
}

test_cidr_public_ranges_hold_a_public_address if {
	cidr.public("0.0.0.0/1") # holds private ranges too, and public ones
	cidr.public("52.95.110.1/32")
	cidr.public("2600:1f18::/32")
	cidr.public("::/0")
	not cidr.public("10.1.0.0/16")
	not cidr.public("192.168.0.0/16")
	not cidr.public("fd00::/8")
	not cidr.public("not-a-range")
}
