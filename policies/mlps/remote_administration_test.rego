package mlps.remote_administration_test

import data.mlps.remote_administration
import data.lib.fixtures

_f(type, name, msg) := fixtures.finding("MLPS-L3-8.1.4.1", "mandatory", type, name, msg)

pass_resources := [
	fixtures.security_group("sg", [{"protocol": "tcp", "fromPort": 22, "toPort": 22, "cidrBlocks": ["10.0.0.0/16"]}], []),
	fixtures.launch_template("lt", "internal", {}),
	fixtures.resource("aws:eks/cluster:Cluster", "eks", {"vpcConfig": {"endpointPublicAccess": false, "endpointPrivateAccess": true}}),
]

fail_resources := [
	fixtures.security_group("sg", [{"protocol": "tcp", "fromPort": 0, "toPort": 3389, "cidrBlocks": ["0.0.0.0/0"]}], []),
	fixtures.launch_template("lt", "internal", {"keyName": "ops"}),
	fixtures.resource("aws:eks/cluster:Cluster", "eks", {"vpcConfig": {"subnetIds": ["subnet-1"]}}),
]

test_pass_private_admin if {
	v := remote_administration.violation with input as fixtures.gate_input(fixtures.mlps_policy, pass_resources)
	v == set()
}

test_fail_public_admin if {
	v := remote_administration.violation with input as fixtures.gate_input(fixtures.mlps_policy, fail_resources)
	v == {
		_f("aws:ec2/securityGroup:SecurityGroup", "sg", "security group opens administration port 22 to the internet"),
		_f("aws:ec2/securityGroup:SecurityGroup", "sg", "security group opens administration port 3389 to the internet"),
		_f("aws:ec2/launchTemplate:LaunchTemplate", "lt", "launch template installs an SSH key pair (keyName); use Session Manager"),
		_f("aws:eks/cluster:Cluster", "eks", "EKS API endpoint is public to the whole internet"),
	}
}

# an EC2 instance checked like a launch template (audit A2)
_instance(inputs) := fixtures.resource("aws:ec2/instance:Instance", "box", object.union(
	{
		"tags": fixtures.tags("personal"),
		"instanceType": "g5.xlarge",
		"rootBlockDevice": {"encrypted": true, "deleteOnTermination": true, "kmsKeyId": "arn:aws:kms:eu-central-1:111122223333:key/k"},
		"metadataOptions": {"httpTokens": "required"},
	},
	inputs,
))

_weak_instance := _instance({
	"associatePublicIpAddress": true,
	"keyName": "ops-key",
	"metadataOptions": {"httpTokens": "optional"},
	"rootBlockDevice": {"encrypted": false, "deleteOnTermination": false},
	"userData": "#!/bin/sh\nexport DB_PASSWORD=hunter2\n",
})

# audit A2: an instance with an SSH key pair
test_fail_instance_key_pair if {
	v := remote_administration.violation with input as fixtures.gate_input(fixtures.mlps_policy, [_weak_instance])
	v == {fixtures.finding("MLPS-L3-8.1.4.1", "mandatory", "aws:ec2/instance:Instance", "box", "instance installs an SSH key pair (keyName); use Session Manager")}
}

_service(name, annotations, ports) := fixtures.resource("kubernetes:core/v1:Service", name, {
	"metadata": {"name": name, "namespace": "inference", "annotations": annotations},
	"spec": {"type": "LoadBalancer", "ports": [{"port": p} | some p in ports]},
})

# audit A11: an internet-facing LoadBalancer Service on port 22 (internal ones pass)
test_fail_internet_load_balancer_service_on_ssh if {
	resources := [
		_service("bastion", {}, [22, 443]),
		_service("internal", {"service.beta.kubernetes.io/aws-load-balancer-scheme": "internal"}, [22]),
	]
	v := remote_administration.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {fixtures.finding("MLPS-L3-8.1.4.1", "mandatory", "kubernetes:core/v1:Service", "bastion", "internet-facing LoadBalancer Service exposes administration port 22")}
}

# red team F11: aws-load-balancer-scheme internet-facing wins over aws-load-balancer-internal "true"
test_fail_scheme_internet_facing_over_internal if {
	resources := [
		_service("conflict", {"service.beta.kubernetes.io/aws-load-balancer-internal": "true", "service.beta.kubernetes.io/aws-load-balancer-scheme": "internet-facing"}, [22]),
		_service("internal", {"service.beta.kubernetes.io/aws-load-balancer-internal": "true"}, [22]),
	]
	v := remote_administration.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {fixtures.finding("MLPS-L3-8.1.4.1", "mandatory", "kubernetes:core/v1:Service", "conflict", "internet-facing LoadBalancer Service exposes administration port 22")}
}

# a given security group (read from EC2) that opens SSH to the internet, on an instance that carries it
test_fail_given_group_opens_ssh if {
	resources := [fixtures.resource("aws:ec2/instance:Instance", "box", {"instanceType": "m5.large", "vpcSecurityGroupIds": [fixtures.ssh_sg]})]
	v := remote_administration.violation with input as fixtures.gate_input_with_given_groups(fixtures.mlps_policy, resources)
	v == {_f("aws:ec2/instance:Instance", "box", sprintf("its security group %s (bastion, read from EC2) opens administration port 22 to the internet", [fixtures.ssh_sg]))}
}

test_eks_endpoint_public_as_text_or_unknown if {
	clusters := [
		fixtures.resource("aws:eks/cluster:Cluster", "text", {"vpcConfig": {"endpointPublicAccess": "true"}}),
		fixtures.resource("aws:eks/cluster:Cluster", "unknown", {"vpcConfig": {"endpointPublicAccess": "[unknown]", "publicAccessCidrs": ["0.0.0.0/0"]}}),
		fixtures.resource("aws:eks/cluster:Cluster", "cidrs-unknown", {"vpcConfig": {"endpointPublicAccess": true, "publicAccessCidrs": "[unknown]"}}),
		fixtures.resource("aws:eks/cluster:Cluster", "private", {"vpcConfig": {"endpointPublicAccess": "false"}}),
		fixtures.resource("aws:eks/cluster:Cluster", "restricted", {"vpcConfig": {"publicAccessCidrs": ["203.0.113.0/24"]}}),
		fixtures.resource("aws:eks/cluster:Cluster", "halves", {"vpcConfig": {"publicAccessCidrs": ["0.0.0.0/1", "128.0.0.0/1"]}}),
		fixtures.resource("aws:eks/cluster:Cluster", "half", {"vpcConfig": {"publicAccessCidrs": ["0.0.0.0/1"]}}),
	]
	v := remote_administration.violation with input as fixtures.gate_input(fixtures.mlps_policy, clusters)
	v == {
		_f("aws:eks/cluster:Cluster", "text", "EKS API endpoint is public to the whole internet"),
		_f("aws:eks/cluster:Cluster", "halves", "EKS API endpoint is public to the whole internet"),
		_f("aws:eks/cluster:Cluster", "unknown", "EKS API endpoint is public to the whole internet"),
		_f("aws:eks/cluster:Cluster", "cidrs-unknown", "EKS API endpoint is public and its publicAccessCidrs are not known until apply, so a restriction cannot be established"),
	}
}

test_node_group_ssh_key if {
	groups := [
		fixtures.resource("aws:eks/nodeGroup:NodeGroup", "open", {"remoteAccess": {"ec2SshKey": "ops-key"}}),
		fixtures.resource("aws:eks/nodeGroup:NodeGroup", "scoped", {"remoteAccess": {"ec2SshKey": "ops-key", "sourceSecurityGroupIds": ["sg-0123456789abcdef0"]}}),
		fixtures.resource("aws:eks/nodeGroup:NodeGroup", "keyless", {"scalingConfig": {"minSize": 1, "maxSize": 2, "desiredSize": 1}}),
	]
	v := remote_administration.violation with input as fixtures.gate_input(fixtures.mlps_policy, groups)
	v == {
		_f("aws:eks/nodeGroup:NodeGroup", "open", "EKS node group installs an SSH key pair (remoteAccess.ec2SshKey); use Session Manager"),
		_f("aws:eks/nodeGroup:NodeGroup", "open", "EKS node group opens administration port 22 to the internet (remoteAccess without sourceSecurityGroupIds)"),
		_f("aws:eks/nodeGroup:NodeGroup", "scoped", "EKS node group installs an SSH key pair (remoteAccess.ec2SshKey); use Session Manager"),
	}
}

test_launch_configuration_key_pair if {
	lc := fixtures.resource("aws:ec2/launchConfiguration:LaunchConfiguration", "lc", {"imageId": "ami-0123456789abcdef0", "instanceType": "g5.xlarge", "keyName": "ops"})
	v := remote_administration.violation with input as fixtures.gate_input(fixtures.mlps_policy, [lc])
	v == {_f("aws:ec2/launchConfiguration:LaunchConfiguration", "lc", "launch configuration installs an SSH key pair (keyName); use Session Manager")}
}

# ports as text ("22"), or unknown until apply (read as every port they might be)
test_ports_as_text_or_unknown if {
	groups := [
		fixtures.security_group("text", [{"protocol": "tcp", "fromPort": "22", "toPort": "22", "cidrBlocks": ["0.0.0.0/0"]}], []),
		fixtures.security_group("unknown", [{"protocol": "tcp", "fromPort": "[unknown]", "toPort": "[unknown]", "cidrBlocks": ["0.0.0.0/0"]}], []),
		fixtures.security_group("web", [{"protocol": "tcp", "fromPort": "443", "toPort": "443", "cidrBlocks": ["0.0.0.0/0"]}], []),
	]
	v := remote_administration.violation with input as fixtures.gate_input(fixtures.mlps_policy, groups)
	v == {
		_f("aws:ec2/securityGroup:SecurityGroup", "text", "security group opens administration port 22 to the internet"),
		_f("aws:ec2/securityGroup:SecurityGroup", "unknown", "security group opens administration port 22 to the internet"),
		_f("aws:ec2/securityGroup:SecurityGroup", "unknown", "security group opens administration port 3389 to the internet"),
	}
}

# red team: a spot fleet request's inline launch specifications are read like instances; one that
# launches from launch templates only is judged by those templates
test_spot_fleet_launch_specification_key_pair if {
	fleets := [
		object.union(fixtures.launch_template("lt", "internal", {}), {"id": "lt-0123456789abcdef0"}),
		fixtures.spot_fleet("keyed", "internal", [{"instanceType": "g5.xlarge"}, {"instanceType": "g5.2xlarge", "keyName": "ops"}]),
		fixtures.spot_fleet("keyless", "internal", [{}]),
		fixtures.resource("aws:ec2/spotFleetRequest:SpotFleetRequest", "templated", {
			"iamFleetRole": "arn:aws:iam::111122223333:role/aws-ec2-spot-fleet-tagging-role",
			"targetCapacity": 2,
			"launchTemplateConfigs": [{"launchTemplateSpecification": {"id": "lt-0123456789abcdef0", "version": "$Latest"}}],
		}),
	]
	v := remote_administration.violation with input as fixtures.gate_input(fixtures.mlps_policy, fleets)
	v == {_f("aws:ec2/spotFleetRequest:SpotFleetRequest", "keyed", "spot fleet launch specification installs an SSH key pair (keyName); use Session Manager")}
}

# a group launching from a launch template the document does not hold (another stack's, an
# aws-native one, an id unknown until apply) cannot be checked and is reported; one launching from
# the document's template is judged by that template
# whatever the data class
test_fail_a_group_launching_from_a_template_the_document_lacks_remote_administration if {
	lt := object.union(fixtures.launch_template("lt", "public", {}), {"id": "lt-0cccccccccccccccc"})
	v := remote_administration.violation with input as fixtures.gate_input(fixtures.mlps_policy, [
		lt,
		_unseen_group("own", "public", "lt-0cccccccccccccccc"),
		_unseen_group("other", "public", "lt-0bbbbbbbbbbbbbbbb"),
	])
	v == {_f("aws:autoscaling/group:Group", "other", "group launches from lt-0bbbbbbbbbbbbbbbb, which is not in the document: whether it installs an SSH key pair cannot be checked")}
}

_unseen_group(name, data_class, ref) := fixtures.resource("aws:autoscaling/group:Group", name, {
	"maxSize": 2, "launchTemplate": {"id": ref, "version": "$Latest"},
	"tags": [{"key": "data-class", "value": data_class, "propagateAtLaunch": true}],
})

# red team: SSH and RDP from a managed prefix list are judged by its entries (inline, or
# ManagedPrefixListEntry resources added to it): a list holding 0.0.0.0/0 or ::/0 is the internet;
# a list the document does not hold (an id only) cannot be shown not to be
_prefix_list(name, id, entries) := object.union(
	fixtures.resource("aws:ec2/managedPrefixList:ManagedPrefixList", name, {"addressFamily": "IPv4", "maxEntries": 5, "entries": [{"cidr": c} | some c in entries]}),
	{"id": id},
)

test_fail_admin_ports_from_prefix_lists if {
	resources := [
		_prefix_list("world", "pl-0000000000000aaaa", ["10.0.0.0/8", "0.0.0.0/0"]),
		_prefix_list("grown", "pl-0000000000000bbbb", []),
		fixtures.resource("aws:ec2/managedPrefixListEntry:ManagedPrefixListEntry", "grown-v6", {"prefixListId": "pl-0000000000000bbbb", "cidr": "::/0"}),
		fixtures.security_group("inline", [{"protocol": "tcp", "fromPort": 22, "toPort": 22, "prefixListIds": ["pl-0000000000000aaaa"]}], []),
		fixtures.resource("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", "rdp", {"securityGroupId": "sg-0123456789abcdef0", "ipProtocol": "tcp", "fromPort": 3389, "toPort": 3389, "prefixListId": "pl-0000000000000bbbb"}),
		fixtures.resource("aws:ec2/securityGroupRule:SecurityGroupRule", "elsewhere", {"type": "ingress", "securityGroupId": "sg-0123456789abcdef0", "protocol": "tcp", "fromPort": 22, "toPort": 22, "prefixListIds": ["pl-0123456789abcdef0"]}),
	]
	v := remote_administration.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {
		_f("aws:ec2/securityGroup:SecurityGroup", "inline", "security group opens administration port 22 to the internet"),
		_f("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", "rdp", "security group opens administration port 3389 to the internet"),
		_f("aws:ec2/securityGroupRule:SecurityGroupRule", "elsewhere", "security group opens administration port 22 to prefix list pl-0123456789abcdef0 (not in the document), whose reach cannot be established"),
	}
}

# near miss: a prefix list of the document that holds only private ranges
test_pass_admin_ports_from_private_prefix_list if {
	resources := [
		_prefix_list("office", "pl-0000000000000cccc", ["10.0.0.0/8", "192.168.0.0/16"]),
		fixtures.security_group("inline", [{"protocol": "tcp", "fromPort": 22, "toPort": 22, "prefixListIds": ["pl-0000000000000cccc"]}], []),
		fixtures.resource("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", "rdp", {"securityGroupId": "sg-0123456789abcdef0", "ipProtocol": "tcp", "fromPort": 3389, "toPort": 3389, "prefixListId": "pl-0000000000000cccc"}),
	]
	v := remote_administration.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == set()
}

# a given security group (read from EC2) whose SSH rule admits a prefix list: the document's list
# is judged by its entries, one it does not hold cannot be shown not to be the internet
test_given_group_ssh_from_prefix_lists if {
	sg := "sg-0666666666666666a"
	facts := {"region": "eu-central-1", "subnets": {}, "security_groups": {sg: {"name": "jump", "vpc_id": "vpc-0123456789abcdef0",
		"ingress": [
			{"protocol": "tcp", "from_port": 22, "to_port": 22, "cidrs": [], "groups": [], "prefix_lists": ["pl-0123456789abcdef0"]},
			{"protocol": "tcp", "from_port": 3389, "to_port": 3389, "cidrs": [], "groups": [], "prefix_lists": ["pl-0000000000000cccc"]},
		],
		"egress": [],
	}}}
	resources := [
		_prefix_list("office", "pl-0000000000000cccc", ["10.0.0.0/8"]),
		fixtures.resource("aws:ec2/instance:Instance", "box", {"instanceType": "m5.large", "vpcSecurityGroupIds": [sg]}),
	]
	v := remote_administration.violation with input as object.union(fixtures.gate_input(fixtures.mlps_policy, resources), {"facts": facts})
	v == {_f("aws:ec2/instance:Instance", "box", "its security group sg-0666666666666666a (jump, read from EC2) opens administration port 22 to prefix list pl-0123456789abcdef0 (not in the document), whose reach cannot be established")}
}

# red team: a CIDR unknown until apply (a preview's placeholder, in a list or as the whole list)
# cannot be shown not to be the internet; with a known one beside it, the rule says both
test_fail_admin_ports_from_unknown_cidrs if {
	resources := [
		fixtures.security_group("inline", [{"protocol": "tcp", "fromPort": 22, "toPort": 22, "cidrBlocks": ["[unknown]"]}], []),
		fixtures.security_group("whole", [{"protocol": "tcp", "fromPort": 22, "toPort": 22, "cidrBlocks": "[unknown]"}], []),
		fixtures.resource("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", "rdp", {"securityGroupId": "sg-0123456789abcdef0", "ipProtocol": "tcp", "fromPort": 3389, "toPort": 3389, "cidrIpv4": "[unknown]"}),
		fixtures.resource("aws:ec2/securityGroupRule:SecurityGroupRule", "both", {"type": "ingress", "securityGroupId": "sg-0123456789abcdef0", "protocol": "tcp", "fromPort": 22, "toPort": 22, "cidrBlocks": ["10.0.0.0/8", "[unknown]"], "prefixListIds": ["pl-0123456789abcdef0"]}),
	]
	v := remote_administration.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {
		_f("aws:ec2/securityGroup:SecurityGroup", "inline", "security group opens administration port 22 to a CIDR unknown until apply, whose reach cannot be established"),
		_f("aws:ec2/securityGroup:SecurityGroup", "whole", "security group opens administration port 22 to a CIDR unknown until apply, whose reach cannot be established"),
		_f("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", "rdp", "security group opens administration port 3389 to a CIDR unknown until apply, whose reach cannot be established"),
		_f("aws:ec2/securityGroupRule:SecurityGroupRule", "both", "security group opens administration port 22 to prefix list pl-0123456789abcdef0 (not in the document) and a CIDR unknown until apply, whose reach cannot be established"),
	}
}

# near miss: known private ranges only
test_pass_admin_ports_from_known_private_cidrs if {
	resources := [fixtures.security_group("inline", [{"protocol": "tcp", "fromPort": 22, "toPort": 22, "cidrBlocks": ["10.0.0.0/8"]}], [])]
	v := remote_administration.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == set()
}

# red team: a secret ("[secret]", Pulumi's marker) is hidden from the gate like a value unknown
# until apply, so it is judged as the worst it could hold: a secret CIDR as the internet may be,
# a secret rule type as ingress, a secret source range or EKS public CIDR as the internet
test_fail_secret_cidrs_and_rule_types_count_as_reaching_the_internet if {
	resources := [
		fixtures.security_group("inline", [{"protocol": "tcp", "fromPort": 22, "toPort": 22, "cidrBlocks": ["[secret]"]}], []),
		fixtures.security_group("inline6", [{"protocol": "tcp", "fromPort": 22, "toPort": 22, "ipv6CidrBlocks": ["[secret]"]}], []),
		fixtures.resource("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", "rule", {"securityGroupId": "sg-1", "ipProtocol": "tcp", "fromPort": 22, "toPort": 22, "cidrIpv4": "[secret]"}),
		fixtures.resource("aws:ec2/securityGroupRule:SecurityGroupRule", "sgr", {"securityGroupId": "sg-1", "type": "ingress", "protocol": "tcp", "fromPort": 22, "toPort": 22, "cidrBlocks": ["[secret]"]}),
		fixtures.resource("aws:ec2/securityGroupRule:SecurityGroupRule", "type-secret", {"securityGroupId": "sg-1", "type": "[secret]", "protocol": "tcp", "fromPort": 22, "toPort": 22, "cidrBlocks": ["0.0.0.0/0"]}),
		fixtures.resource("aws:ec2/securityGroupRule:SecurityGroupRule", "type-unknown", {"securityGroupId": "sg-1", "type": "[unknown]", "protocol": "tcp", "fromPort": 22, "toPort": 22, "cidrBlocks": ["0.0.0.0/0"]}),
		fixtures.resource("aws:ec2/securityGroupRule:SecurityGroupRule", "egress", {"securityGroupId": "sg-1", "type": "egress", "protocol": "tcp", "fromPort": 22, "toPort": 22, "cidrBlocks": ["0.0.0.0/0"]}),
	]
	v := remote_administration.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	secret := "security group opens administration port 22 to a CIDR the document does not show (secret), whose reach cannot be established"
	v == {
		_f("aws:ec2/securityGroup:SecurityGroup", "inline", secret),
		_f("aws:ec2/securityGroup:SecurityGroup", "inline6", secret),
		_f("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", "rule", secret),
		_f("aws:ec2/securityGroupRule:SecurityGroupRule", "sgr", secret),
		_f("aws:ec2/securityGroupRule:SecurityGroupRule", "type-secret", "security group opens administration port 22 to the internet"),
		_f("aws:ec2/securityGroupRule:SecurityGroupRule", "type-unknown", "security group opens administration port 22 to the internet"),
	}
}

_ranged_service(name, ranges) := fixtures.resource("kubernetes:core/v1:Service", name, {
	"metadata": {"name": name, "namespace": "inference"},
	"spec": {"type": "LoadBalancer", "ports": [{"port": 22}], "loadBalancerSourceRanges": ranges},
})

test_fail_hidden_source_ranges_and_eks_public_cidrs if {
	resources := [
		_ranged_service("ranges-secret", ["10.0.0.0/8", "[secret]"]),
		_ranged_service("ranges-unknown", ["[unknown]"]),
		_ranged_service("ranges-private", ["10.0.0.0/8"]),
		fixtures.resource("aws:eks/cluster:Cluster", "eks-secret", {"vpcConfig": {"endpointPublicAccess": true, "publicAccessCidrs": ["[secret]"]}}),
		fixtures.resource("aws:eks/cluster:Cluster", "eks-unknown", {"vpcConfig": {"endpointPublicAccess": true, "publicAccessCidrs": ["10.0.0.0/8", "[unknown]"]}}),
		fixtures.resource("aws:eks/cluster:Cluster", "eks-private", {"vpcConfig": {"endpointPublicAccess": true, "publicAccessCidrs": ["203.0.113.0/24"]}}),
	]
	v := remote_administration.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {
		_f("kubernetes:core/v1:Service", "ranges-secret", "internet-facing LoadBalancer Service exposes administration port 22"),
		_f("kubernetes:core/v1:Service", "ranges-unknown", "internet-facing LoadBalancer Service exposes administration port 22"),
		_f("aws:eks/cluster:Cluster", "eks-secret", "EKS API endpoint is public and its publicAccessCidrs hold a CIDR the document does not show (secret), so a restriction cannot be established"),
		_f("aws:eks/cluster:Cluster", "eks-unknown", "EKS API endpoint is public and its publicAccessCidrs hold a CIDR the document does not show (unknown until apply), so a restriction cannot be established"),
	}
}

# red team: a protocol that is secret or unknown until apply may be "-1", every protocol and port:
# a rule for port 443 from the internet does not narrow to 443
_hidden_protocol_rules := [
	fixtures.resource("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", "secret-proto", {"securityGroupId": "sg-1", "ipProtocol": "[secret]", "fromPort": 443, "toPort": 443, "cidrIpv4": "0.0.0.0/0"}),
	fixtures.security_group("unknown-proto", [{"protocol": "[unknown]", "fromPort": 443, "toPort": 443, "cidrBlocks": ["0.0.0.0/0"]}], []),
]

_rule_type := "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule"

_sg_type := "aws:ec2/securityGroup:SecurityGroup"

test_fail_hidden_protocol_opens_administration_ports if {
	v := remote_administration.violation with input as fixtures.gate_input(fixtures.mlps_policy, _hidden_protocol_rules)
	v == {_f(t, name, sprintf("security group opens administration port %d to the internet (its protocol is %s, so every port)", [port, why])) |
		some [t, name, why] in [[_rule_type, "secret-proto", "secret"], [_sg_type, "unknown-proto", "unknown until apply"]]
		some port in [22, 3389]
	}
}

# red team: rules of one group cover the internet together on a port their ranges share, whatever
# their spans and however they name the protocol (a rule of every protocol counts for each); each
# rule with a broad range that takes part is reported on the open ports; ranges that do not meet are not
test_fail_ranges_that_cover_the_internet_together_on_shared_ports if {
	resources := [
		_sg_rule("ssh-low", "sg-1", "tcp", 22, 22, "0.0.0.0/1"),
		_sg_rule("all-ports-high", "sg-1", "6", 0, 65535, "128.0.0.0/1"),
		_sg_rule("every-protocol-low", "sg-2", "-1", 0, 0, "0.0.0.0/1"),
		_sg_rule("ssh-high", "sg-2", "tcp", 22, 22, "128.0.0.0/1"),
		_sg_rule("overlap-low", "sg-3", "tcp", 20, 23, "0.0.0.0/1"),
		_sg_rule("overlap-high", "sg-3", "tcp", 22, 80, "128.0.0.0/1"),
		_sg_rule("apart-low", "sg-4", "tcp", 20, 21, "0.0.0.0/1"),
		_sg_rule("apart-high", "sg-4", "tcp", 22, 80, "128.0.0.0/1"),
		_sg_rule("udp-low", "sg-5", "udp", 22, 22, "0.0.0.0/1"),
		_sg_rule("tcp-high", "sg-5", "tcp", 22, 22, "128.0.0.0/1"),
		# an office range beside a rule open to the world is not what opens the port
		_sg_rule("world", "sg-6", "tcp", 22, 22, "0.0.0.0/0"),
		_sg_rule("office", "sg-6", "tcp", 22, 22, "203.0.113.0/24"),
		_sg_rule("broad", "sg-6", "tcp", 0, 65535, "128.0.0.0/1"),
	]
	v := remote_administration.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	{[f.resource_name, f.message] | some f in v} == {
		["ssh-low", "security group opens administration port 22 to the internet"],
		["all-ports-high", "security group opens administration port 22 to the internet"],
		["every-protocol-low", "security group opens administration port 22 to the internet"],
		["ssh-high", "security group opens administration port 22 to the internet"],
		["overlap-low", "security group opens administration port 22 to the internet"],
		["overlap-high", "security group opens administration port 22 to the internet"],
		["world", "security group opens administration port 22 to the internet"],
	}
}

_sg_rule(name, group, protocol, from, to, cidr_block) := fixtures.resource("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", name, {"securityGroupId": group, "ipProtocol": protocol, "fromPort": from, "toPort": to, "cidrIpv4": cidr_block})

# red team: a listener of an internet-facing load balancer on 22 or 3389 opens administration to
# the internet; one on another port, or of an internal load balancer, does not
_nlb(name, internal) := object.union(fixtures.resource("aws:lb/loadBalancer:LoadBalancer", name, {"loadBalancerType": "network", "internal": internal}), {"id": sprintf("%s-id", [name])})

_nlb_listener(name, lb, port) := fixtures.resource("aws:lb/listener:Listener", name, {"loadBalancerArn": sprintf("%s-id", [lb]), "port": port, "protocol": "TCP", "defaultActions": []})

test_fail_internet_load_balancer_listener_on_ssh if {
	resources := [
		_nlb("public", false),
		_nlb_listener("ssh", "public", 22),
		_nlb_listener("pg", "public", 5432),
		_nlb("private", true),
		_nlb_listener("private-ssh", "private", 22),
		object.union(_nlb("maybe", "[unknown]"), {"id": "maybe-id"}),
		_nlb_listener("rdp", "maybe", "3389"),
	]
	v := remote_administration.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {
		_f("aws:lb/listener:Listener", "ssh", "listener of internet-facing load balancer public exposes administration port 22 to the internet"),
		_f("aws:lb/listener:Listener", "rdp", "listener of load balancer maybe (internal is unknown until apply, so it may be internet-facing) exposes administration port 3389 to the internet"),
	}
}
