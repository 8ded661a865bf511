# METADATA
# title: Findings
# description: >-
#   The one helper every control uses to build a finding, so all findings share one shape.
#   A control's severity comes from its METADATA (loaded into data.seedance.controls by the gate)
#   unless data.seedance.severity_overrides changes it; an unknown control counts as mandatory.
# scope: package
package lib.findings

# finding is the shape of every finding: control id, severity, resource and message.
finding(control_id, resource, message) := {
	"control_id": control_id,
	"severity": object.get(_severities, control_id, "mandatory"),
	"urn": resource.urn,
	"resource_type": resource.type,
	"resource_name": resource.name,
	"message": message,
}

severity(control_id) := object.get(_severities, control_id, "mandatory")

# every known control's severity, worked out once per evaluation: a lookup under data costs regorus
# far more than one in a rule, and thousands of findings ask (finding inlines severity for that reason)
_severities := object.union(
	{id: sev | some id, c in data.seedance.controls; sev := c.severity},
	{id: sev | some id, sev in data.seedance.severity_overrides},
)

# problem is what a control collects before it becomes a finding: a resource and a message. The
# resource's URN leads the object ("at" sorts first), so a set of problems compares URNs, not whole
# resources: comparing two resources with the same message walked their inputs and dominated
# large documents.
problem(resource, message) := {"at": resource.urn, "message": message, "resource": resource}

# stack is the pseudo-resource that stack-wide findings (something missing) are reported on.
stack(document) := {
	"urn": sprintf("urn:pulumi:%s::%s::pulumi:pulumi:Stack::%s-%s", [s, p, p, s]),
	"type": "pulumi:pulumi:Stack",
	"name": sprintf("%s-%s", [p, s]),
} if {
	s := object.get(document, "stack", "stack")
	p := object.get(document, "project", "project")
}
