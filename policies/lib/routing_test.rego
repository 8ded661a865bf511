package lib.routing_test

import data.lib.fixtures
import data.lib.routing

_bucket(name) := fixtures.resource("aws:s3/bucket:Bucket", name, {})

_targets := [
	_bucket("logs"),
	object.union(_bucket("audit"), {"id": "audit-bucket-7f3a"}),
	_bucket("logs-archive"),
	object.union(_bucket("empty-id"), {"id": ""}),
]

# the index referred reads, as the libraries build it (there by a partial rule)
_index := {k: {j | some j, u in _targets; k in routing.target_keys(u)} |
	some t in _targets
	some k in routing.target_keys(t)
}

_source(value, deps) := object.union(
	fixtures.resource("aws:ec2/flowLog:FlowLog", "fl", {"logDestination": value}),
	{"property_dependencies": {"logDestination": deps}},
)

# referred finds, through the index, exactly the targets refers names one by one
_agrees(src) if {
	by_refers := {j | some j, t in _targets; routing.refers(src, "logDestination", t)}
	routing.referred(src, "logDestination", _index) == by_refers
}

test_routing_referred_finds_what_refers_names if {
	_agrees(_source(_targets[0].urn, [])) # the value is a URN
	_agrees(_source("audit-bucket-7f3a", [])) # a recorded id
	_agrees(_source("logs-0a1b2c3d", [])) # a mock-runtime id: the logical name
	_agrees(_source("logs-archive-0a1b2c3d", [])) # ... of the longer name only
	_agrees(_source("[unknown]", [_targets[2].urn])) # property dependencies
	_agrees(_source("logs", [])) # a bare logical name is not a reference
	_agrees(_source("", [])) # nor is an empty value (the empty id)
	_agrees(fixtures.resource("aws:ec2/flowLog:FlowLog", "fl", {})) # no input
}

test_routing_referred_positions if {
	routing.referred(_source("logs-0a1b2c3d", [_targets[1].urn]), "logDestination", _index) == {0, 1}
	routing.referred(_source("logs", []), "logDestination", _index) == set()
	routing.referred(_source("", []), "logDestination", _index) == set()
}
