package lib.fmt_test

import data.lib.fmt

test_two_decimals if {
	fmt.two_decimals(1250) == "1250.00"
	fmt.two_decimals(4.5) == "4.50"
}

test_percent_keeps_what_tells_values_apart if {
	fmt.percent(0.705) == "70.5"
	fmt.percent(0.71) == "71"
	fmt.percent(0.875) == "87.5"
	fmt.percent(0.3) == "30"
	fmt.percent(0.0005) == "0.05"
	fmt.percent(1.00224) == "100.22"
	fmt.percent(0) == "0"
}

test_percent_down_never_reaches_what_it_has_not if {
	fmt.percent_down(0.84996) == "84.99"
	fmt.percent_down(0.85) == "85"
	fmt.percent_down(0.875) == "87.5"
	fmt.percent_down(1.002241) == "100.22"
	fmt.percent_down(0.29) == "29"
}
