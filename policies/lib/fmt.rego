# METADATA
# title: Number formatting
# description: >-
#   Formatting that prints the same on OPA and regorus (their sprintf differs for %f on whole
#   numbers), so messages and the tests asserting them are engine-independent.
# scope: package
package lib.fmt

# two_decimals(1250) == "1250.00", two_decimals(4.5) == "4.50"
two_decimals(x) := sprintf("%s.%s", [format_int(whole, 10), _pad2(format_int(rest, 10))]) if {
	cents := round(x * 100)
	whole := floor(cents / 100)
	rest := cents - (whole * 100)
}

_pad2(s) := s if count(s) >= 2

_pad2(s) := concat("", ["0", s]) if count(s) < 2
