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

# A fraction as a percentage with up to two decimals, trailing zeros dropped: percent(0.705) ==
# "70.5", percent(0.71) == "71", percent(0.875) == "87.5". Whole percentages would print a cap of
# 70.5% as 71% beside a share of 71% that exceeds it.
percent(x) := _hundredths(round(x * 10000))

# The same, rounded down (with a little slack for binary fractions, as thresholds fire): what a
# measured share reads, so 84.996% never reads as the 85% threshold it has not reached.
percent_down(x) := _hundredths(floor((x * 10000) + 0.000001))

_hundredths(n) := format_int(whole, 10) if {
	whole := floor(n / 100)
	n - (whole * 100) == 0
} else := sprintf("%s.%s", [format_int(whole, 10), format_int(rest / 10, 10)]) if {
	whole := floor(n / 100)
	rest := n - (whole * 100)
	rest % 10 == 0
} else := sprintf("%s.%s", [format_int(whole, 10), _pad2(format_int(rest, 10))]) if {
	whole := floor(n / 100)
	rest := n - (whole * 100)
}
