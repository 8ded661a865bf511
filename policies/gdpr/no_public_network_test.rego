package gdpr.no_public_network_test

import data.gdpr.no_public_network
import data.lib.fixtures

_f(type, name, msg) := fixtures.finding("GDPR-25.2-2", "mandatory", type, name, msg)

_svc(name, annotations) := fixtures.resource("kubernetes:core/v1:Service", name, {
	"metadata": {"name": name, "namespace": "inference", "annotations": annotations},
	"spec": {"type": "LoadBalancer", "ports": [{"port": 443}]},
})

pass_resources := [
	fixtures.launch_template("lt", "personal", {"networkInterfaces": [{"associatePublicIpAddress": "false"}]}),
	fixtures.security_group("web", [{"protocol": "tcp", "fromPort": 443, "toPort": 443, "cidrBlocks": ["0.0.0.0/0"]}], []),
	fixtures.security_group("vpce", [{"protocol": "tcp", "fromPort": 0, "toPort": 65535, "cidrBlocks": ["10.0.0.0/16"]}], []),
	_svc("api", {"service.beta.kubernetes.io/aws-load-balancer-scheme": "internal"}),
]

fail_resources := [
	fixtures.launch_template("lt", "personal", {"networkInterfaces": [{"associatePublicIpAddress": "true"}]}),
	fixtures.security_group("ssh", [{"protocol": "tcp", "fromPort": 22, "toPort": 22, "cidrBlocks": ["0.0.0.0/0"]}], []),
	_svc("api", {}),
]

test_pass_private_network if {
	v := no_public_network.violation with input as fixtures.gate_input(fixtures.gdpr_policy, pass_resources)
	v == set()
}

test_fail_public_network if {
	v := no_public_network.violation with input as fixtures.gate_input(fixtures.gdpr_policy, fail_resources)
	v == {
		_f("aws:ec2/launchTemplate:LaunchTemplate", "lt", "personal-data launch template gives instances a public IP"),
		_f("aws:ec2/securityGroup:SecurityGroup", "ssh", "security group admits the internet on tcp ports 22-22"),
		_f("kubernetes:core/v1:Service", "api", "LoadBalancer Service is internet-facing"),
	}
}

# red team F11: the AWS Load Balancer Controller gives aws-load-balancer-scheme precedence over the
# deprecated aws-load-balancer-internal, so a Service carrying both is what the scheme says
_scheme := "service.beta.kubernetes.io/aws-load-balancer-scheme"

_internal := "service.beta.kubernetes.io/aws-load-balancer-internal"

test_fail_scheme_annotation_takes_precedence if {
	resources := [
		_svc("conflict", {_internal: "true", _scheme: "internet-facing"}),
		_svc("unknown-scheme", {_internal: "true", _scheme: "[unknown]"}),
	]
	v := no_public_network.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {
		_f("kubernetes:core/v1:Service", "conflict", "LoadBalancer Service is internet-facing: aws-load-balancer-scheme internet-facing takes precedence over aws-load-balancer-internal \"true\""),
		_f("kubernetes:core/v1:Service", "unknown-scheme", "LoadBalancer Service may be internet-facing: its aws-load-balancer-scheme annotation is unknown until apply, and the scheme decides whatever aws-load-balancer-internal says"),
	}
}

test_pass_internal_by_scheme_or_by_internal_alone if {
	resources := [
		_svc("both-internal", {_internal: "true", _scheme: "internal"}),
		_svc("scheme-wins", {_internal: "false", _scheme: "internal"}),
		_svc("deprecated-only", {_internal: "true"}),
	]
	v := no_public_network.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == set()
}

# the controller gives an IngressClassParams' scheme precedence over every Ingress annotation of
# its class
_params(name, spec) := fixtures.resource("kubernetes:elbv2.k8s.aws/v1beta1:IngressClassParams", name, {"metadata": {"name": name}, "spec": spec})

test_fail_ingress_class_params_internet_facing if {
	resources := [_params("public", {"scheme": "internet-facing"}), _params("hidden", {"scheme": "[secret]"}), _params("private", {"scheme": "internal"}), _params("unset", {})]
	v := no_public_network.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {
		_f("kubernetes:elbv2.k8s.aws/v1beta1:IngressClassParams", "public", "IngressClassParams sets scheme internet-facing: every Ingress of the IngressClasses that name it gets that scheme, whatever its alb.ingress.kubernetes.io/scheme annotation says"),
		_f("kubernetes:elbv2.k8s.aws/v1beta1:IngressClassParams", "hidden", "IngressClassParams scheme is secret, so it may be internet-facing: every Ingress of the IngressClasses that name it gets that scheme, whatever its alb.ingress.kubernetes.io/scheme annotation says"),
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

# audit A2: a personal-data instance with a public IP
test_fail_instance_public_ip if {
	v := no_public_network.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [_weak_instance])
	v == {fixtures.finding("GDPR-25.2-2", "mandatory", "aws:ec2/instance:Instance", "box", "personal-data instance gets a public IP (associatePublicIpAddress)")}
}

# audit A10: the default security group's inline rules
test_fail_default_security_group_rules if {
	sg := fixtures.resource("aws:ec2/defaultSecurityGroup:DefaultSecurityGroup", "default", {
		"vpcId": "vpc-0123456789abcdef0",
		"ingress": [{"protocol": "tcp", "fromPort": 22, "toPort": 22, "cidrBlocks": ["0.0.0.0/0"]}],
	})
	v := no_public_network.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [sg])
	v == {fixtures.finding("GDPR-25.2-2", "mandatory", "aws:ec2/defaultSecurityGroup:DefaultSecurityGroup", "default", "security group admits the internet on tcp ports 22-22")}
}

# a given security group (read from EC2) that admits the internet, on the launch template that names it
test_fail_given_group_admits_the_internet if {
	resources := [fixtures.launch_template("nodes", "personal", {"vpcSecurityGroupIds": [fixtures.ssh_sg, fixtures.eks_cluster_sg]})]
	v := no_public_network.violation with input as fixtures.gate_input_with_given_groups(fixtures.gdpr_policy, resources)
	v == {_f("aws:ec2/launchTemplate:LaunchTemplate", "nodes", sprintf("its security group %s (bastion, read from EC2) admits the internet on tcp ports 22-22", [fixtures.ssh_sg]))}
}

# an Elastic IP makes an instance public whatever associatePublicIpAddress says
test_fail_elastic_ip_on_personal_instance if {
	box := fixtures.resource("aws:ec2/instance:Instance", "box", {"tags": fixtures.tags("personal"), "associatePublicIpAddress": false})
	other := fixtures.resource("aws:ec2/instance:Instance", "other", {"tags": fixtures.tags("personal"), "subnetId": "subnet-0a0a0a0a0a0a0a0a0"})
	eip := fixtures.resource("aws:ec2/eip:Eip", "ip", {"domain": "vpc", "instance": "box-1a2b3c4d"})
	v := no_public_network.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [box, other, eip])
	v == {fixtures.finding("GDPR-25.2-2", "mandatory", "aws:ec2/instance:Instance", "box", "personal-data instance gets a public IP (an Elastic IP is attached to it)")}
	assoc := fixtures.resource("aws:ec2/eipAssociation:EipAssociation", "assoc", {"instanceId": "[unknown]", "allocationId": "[unknown]"})
	w := no_public_network.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [box, other, assoc])
	w == {
		fixtures.finding("GDPR-25.2-2", "mandatory", "aws:ec2/instance:Instance", "box", "personal-data instance gets a public IP (an Elastic IP is attached to it)"),
		fixtures.finding("GDPR-25.2-2", "mandatory", "aws:ec2/instance:Instance", "other", "personal-data instance gets a public IP (an Elastic IP is attached to it)"),
	}
}

# red team F9: an Elastic IP on a network interface the instance carries (its networkInterfaces,
# the interface's attachments, a NetworkInterfaceAttachment, or its own primary interface) makes
# it public as one on the instance does
_eni(name, inputs) := fixtures.resource("aws:ec2/networkInterface:NetworkInterface", name, object.union({"subnetId": "subnet-0a0a0a0a0a0a0a0a0"}, inputs))

_vm(name, class, inputs) := fixtures.resource("aws:ec2/instance:Instance", name, object.union({"subnetId": "subnet-0a0a0a0a0a0a0a0a0", "tags": fixtures.tags(class)}, inputs))

_eip(name, inputs) := fixtures.resource("aws:ec2/eip:Eip", name, object.union({"domain": "vpc"}, inputs))

_eni_urn(name) := fixtures.urn("aws:ec2/networkInterface:NetworkInterface", name)

_vm_type := "aws:ec2/instance:Instance"

test_fail_elastic_ip_on_a_network_interface_of_personal_instance if {
	resources := [
		_eni("nic", {}),
		_vm("vm", "personal", {"networkInterfaces": [{"networkInterfaceId": "nic-1a2b3c4d", "deviceIndex": 0}]}),
		_eip("ip", {"networkInterface": "nic-1a2b3c4d"}),
		object.union(_eni("nic2", {"attachments": [{"instance": "[unknown]", "deviceIndex": 1}]}), {"property_dependencies": {"attachments": [fixtures.urn(_vm_type, "vm2")]}}),
		_vm("vm2", "personal", {}),
		object.union(fixtures.resource("aws:ec2/eipAssociation:EipAssociation", "assoc2", {"networkInterfaceId": "[unknown]", "allocationId": "eipalloc-0123456789abcdef0"}), {"property_dependencies": {"networkInterfaceId": [_eni_urn("nic2")]}}),
		_eni("nic3", {}),
		_vm("vm3", "personal", {}),
		fixtures.resource("aws:ec2/networkInterfaceAttachment:NetworkInterfaceAttachment", "att", {"instanceId": "vm3-1a2b3c4d", "networkInterfaceId": "nic3-1a2b3c4d", "deviceIndex": 1}),
		_eip("ip3", {"networkInterface": "nic3-1a2b3c4d"}),
		_vm("vm4", "personal", {}),
		object.union(_eip("ip4", {"networkInterface": "[unknown]"}), {"property_dependencies": {"networkInterface": [fixtures.urn(_vm_type, "vm4")]}}),
	]
	v := no_public_network.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {
		_f(_vm_type, "vm", "personal-data instance gets a public IP (Elastic IP ip is attached to its network interface nic)"),
		_f(_vm_type, "vm2", "personal-data instance gets a public IP (Elastic IP assoc2 is attached to its network interface nic2)"),
		_f(_vm_type, "vm3", "personal-data instance gets a public IP (Elastic IP ip3 is attached to its network interface nic3)"),
		_f(_vm_type, "vm4", "personal-data instance gets a public IP (Elastic IP ip4 is attached to its network interface)"),
	}
}

# an Elastic IP on an interface no instance of the stack carries: reported where the interface is
# tagged personal or sits in a personal-data instance's subnet; an untagged one elsewhere, and one
# on a public-data instance, pass (MLPS-L3-8.1.3.1a reports them)
test_elastic_ip_on_a_loose_network_interface if {
	resources := [
		_eni("tagged", {"tags": fixtures.tags("personal")}),
		_eip("ip1", {"networkInterface": "tagged-1a2b3c4d"}),
		_eni("shared", {"subnetId": "subnet-0b0b0b0b0b0b0b0b0"}),
		_vm("db-host", "personal", {"subnetId": "subnet-0b0b0b0b0b0b0b0b0"}),
		_eip("ip2", {"networkInterface": "shared-1a2b3c4d"}),
		_eni("elsewhere", {"subnetId": "subnet-0c0c0c0c0c0c0c0c0"}),
		_eip("ip3", {"networkInterface": "elsewhere-1a2b3c4d"}),
		_eni("web-nic", {}),
		_vm("web", "public", {"networkInterfaces": [{"networkInterfaceId": "web-nic-1a2b3c4d", "deviceIndex": 0}]}),
		_eip("ip4", {"networkInterface": "web-nic-1a2b3c4d"}),
		_eni("grouped", {"subnetId": "subnet-0d0d0d0d0d0d0d0d0", "securityGroups": ["sg-0123456789abcdef0"]}),
		fixtures.launch_template("nodes", "personal", {"vpcSecurityGroupIds": ["sg-0123456789abcdef0"]}),
		_eip("ip5", {"networkInterface": "grouped-1a2b3c4d"}),
	]
	v := no_public_network.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {
		_f("aws:ec2/networkInterface:NetworkInterface", "grouped", "network interface gets a public IP (Elastic IP ip5 is attached to it), and no instance of the stack is tied to it: whatever it is attached to is reachable from the internet; it serves personal data: its security group sg-0123456789abcdef0 is one personal-data nodes carries"),
		_f("aws:ec2/networkInterface:NetworkInterface", "tagged", "network interface gets a public IP (Elastic IP ip1 is attached to it), and no instance of the stack is tied to it: whatever it is attached to is reachable from the internet; it serves personal data: it is tagged data-class personal"),
		_f("aws:ec2/networkInterface:NetworkInterface", "shared", "network interface gets a public IP (Elastic IP ip2 is attached to it), and no instance of the stack is tied to it: whatever it is attached to is reachable from the internet; it serves personal data: its subnet is where personal-data db-host runs"),
	}
}

_ingress(name, scheme) := fixtures.resource("kubernetes:networking.k8s.io/v1:Ingress", name, {
	"metadata": {"name": name, "namespace": "inference", "annotations": {"alb.ingress.kubernetes.io/scheme": scheme}},
	"spec": {"ingressClassName": "alb"},
})

test_fail_internet_facing_ingress if {
	v := no_public_network.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [_ingress("public", "internet-facing"), _ingress("private", "internal")])
	v == {fixtures.finding("GDPR-25.2-2", "mandatory", "kubernetes:networking.k8s.io/v1:Ingress", "public", "Ingress is internet-facing (alb.ingress.kubernetes.io/scheme)")}
}

# red team: a given security group that a spot fleet launch specification names
test_fail_given_group_on_a_spot_fleet_launch_specification if {
	resources := [fixtures.spot_fleet("sfr", "personal", [{"vpcSecurityGroupIds": [fixtures.ssh_sg]}])]
	v := no_public_network.violation with input as fixtures.gate_input_with_given_groups(fixtures.gdpr_policy, resources)
	v == {_f("aws:ec2/spotFleetRequest:SpotFleetRequest", "sfr", sprintf("its security group %s (bastion, read from EC2) admits the internet on tcp ports 22-22", [fixtures.ssh_sg]))}
}

# a group launching from a launch template the document does not hold (another stack's, an
# aws-native one, an id unknown until apply) cannot be checked and is reported; one launching from
# the document's template is judged by that template
# only personal data is in scope: a public group launching from it is not reported
test_fail_a_group_launching_from_a_template_the_document_lacks_no_public_network if {
	lt := object.union(fixtures.launch_template("lt", "personal", {}), {"id": "lt-0cccccccccccccccc"})
	v := no_public_network.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [
		lt,
		_unseen_group("own", "personal", "lt-0cccccccccccccccc"),
		_unseen_group("other", "personal", "lt-0bbbbbbbbbbbbbbbb"),
		_unseen_group("public-other", "public", "lt-0bbbbbbbbbbbbbbbb"),
	])
	v == {_f("aws:autoscaling/group:Group", "other", "group launches from lt-0bbbbbbbbbbbbbbbb, which is not in the document: whether its instances get a public IP cannot be checked")}
}

_unseen_group(name, data_class, ref) := fixtures.resource("aws:autoscaling/group:Group", name, {
	"maxSize": 2, "launchTemplate": {"id": ref, "version": "$Latest"},
	"tags": [{"key": "data-class", "value": data_class, "propagateAtLaunch": true}],
})

# red team: a public IP unknown until apply read as none (truthy("[unknown]") is false)
test_fail_a_public_ip_unknown_until_apply if {
	lt := fixtures.launch_template("lt", "personal", {"networkInterfaces": [{"associatePublicIpAddress": "[unknown]"}]})
	open := fixtures.launch_template("open", "public", {"networkInterfaces": [{"associatePublicIpAddress": "[unknown]"}]})
	v := no_public_network.violation with input as fixtures.gate_input(fixtures.gdpr_policy, [lt, open])
	{[f.resource_name, f.message] | some f in v} == {["lt", "personal-data launch template may give instances a public IP: associatePublicIpAddress is unknown until apply"]}
}

# red team: ingress from a prefix list whose entries (here an entry resource holding ::/0) reach
# the internet, and from a list the document does not hold; near miss: 443 from such a list
test_ingress_from_prefix_lists if {
	lst := object.union(fixtures.resource("aws:ec2/managedPrefixList:ManagedPrefixList", "partners", {"addressFamily": "IPv6", "maxEntries": 5}), {"id": "pl-0000000000000dddd"})
	resources := [
		lst,
		fixtures.resource("aws:ec2/managedPrefixListEntry:ManagedPrefixListEntry", "anyone", {"prefixListId": "pl-0000000000000dddd", "cidr": "::/0"}),
		fixtures.security_group("app", [{"protocol": "tcp", "fromPort": 8443, "toPort": 8443, "prefixListIds": ["pl-0000000000000dddd"]}], []),
		fixtures.security_group("db", [{"protocol": "tcp", "fromPort": 5432, "toPort": 5432, "prefixListIds": ["pl-0123456789abcdef0"]}], []),
		fixtures.security_group("web", [{"protocol": "tcp", "fromPort": 443, "toPort": 443, "prefixListIds": ["pl-0123456789abcdef0"]}], []),
	]
	v := no_public_network.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {
		_f("aws:ec2/securityGroup:SecurityGroup", "app", "security group admits the internet on tcp ports 8443-8443"),
		_f("aws:ec2/securityGroup:SecurityGroup", "db", "security group admits tcp ports 5432-5432 from prefix list pl-0123456789abcdef0 (not in the document), whose reach cannot be established"),
	}
}

# red team: a personal-data instance's secret associatePublicIpAddress may be true (one unknown until
# apply is an output the subnet decides, and is left)
test_fail_secret_instance_public_ip_gdpr if {
	resources := [
		fixtures.resource("aws:ec2/instance:Instance", "vm", {"tags": fixtures.tags("personal"), "associatePublicIpAddress": "[secret]", "subnetId": "subnet-0a0a0a0a0a0a0a0a0"}),
		fixtures.resource("aws:ec2/instance:Instance", "later", {"tags": fixtures.tags("personal"), "associatePublicIpAddress": "[unknown]", "subnetId": "subnet-0a0a0a0a0a0a0a0a0"}),
	]
	v := no_public_network.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {_f("aws:ec2/instance:Instance", "vm", "personal-data instance may give instances a public IP: associatePublicIpAddress is secret")}
}

# red team: a protocol that is secret or unknown until apply may be "-1" (every port), not only 443
test_fail_hidden_protocol_is_not_only_https_gdpr if {
	resources := [
		fixtures.resource("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", "secret-proto", {"securityGroupId": "sg-1", "ipProtocol": "[secret]", "fromPort": 443, "toPort": 443, "cidrIpv4": "0.0.0.0/0"}),
		fixtures.security_group("unknown-proto", [{"protocol": "[unknown]", "fromPort": 443, "toPort": 443, "cidrBlocks": ["0.0.0.0/0"]}], []),
		fixtures.security_group("https", [{"protocol": "tcp", "fromPort": 443, "toPort": 443, "cidrBlocks": ["0.0.0.0/0"]}], []),
	]
	v := no_public_network.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {
		_f("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", "secret-proto", "security group admits the internet on every protocol and port (its protocol is secret)"),
		_f("aws:ec2/securityGroup:SecurityGroup", "unknown-proto", "security group admits the internet on every protocol and port (its protocol is unknown until apply)"),
	}
}

# red team: a Service type or Ingress scheme the document does not show may be internet-facing
test_fail_hidden_service_type_and_ingress_scheme if {
	resources := [
		fixtures.resource("kubernetes:core/v1:Service", "svc", {"metadata": {"name": "svc"}, "spec": {"type": "[secret]"}}),
		fixtures.resource("kubernetes:core/v1:Service", "whole", {"metadata": {"name": "whole"}, "spec": "[unknown]"}),
		fixtures.resource("kubernetes:core/v1:Service", "internal", {"metadata": {"name": "internal", "annotations": {"service.beta.kubernetes.io/aws-load-balancer-scheme": "internal"}}, "spec": {"type": "[secret]"}}),
		fixtures.resource("kubernetes:networking.k8s.io/v1:Ingress", "ing", {"metadata": {"name": "ing", "annotations": {"alb.ingress.kubernetes.io/scheme": "[secret]"}}, "spec": {}}),
	]
	v := no_public_network.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {
		_f("kubernetes:core/v1:Service", "svc", "Service type is secret, so it may be an internet-facing LoadBalancer"),
		_f("kubernetes:core/v1:Service", "whole", "Service type is unknown until apply, so it may be an internet-facing LoadBalancer"),
		_f("kubernetes:networking.k8s.io/v1:Ingress", "ing", "Ingress scheme (alb.ingress.kubernetes.io/scheme) is secret, so it may be internet-facing"),
	}
}

# Data stores with a publiclyAccessible switch: personal-data ones must keep it off (the pulumi-aws
# default); a cluster instance holds its cluster's data
_store(type, name, data_class, inputs) := fixtures.resource(type, name, object.union({"tags": fixtures.tags(data_class)}, inputs))

_db := "aws:rds/instance:Instance"

_aurora := "aws:rds/cluster:Cluster"

_aurora_instance := "aws:rds/clusterInstance:ClusterInstance"

test_pass_private_or_public_data_stores if {
	resources := [
		_store(_db, "users", "personal", {"engine": "postgres", "instanceClass": "db.t4g.medium", "publiclyAccessible": false}),
		_store(_db, "defaults", "personal", {"engine": "postgres", "instanceClass": "db.t4g.medium"}),
		_store(_db, "catalog", "public", {"engine": "postgres", "instanceClass": "db.t4g.medium", "publiclyAccessible": true}),
		_store("aws:redshift/cluster:Cluster", "warehouse", "personal", {"nodeType": "ra3.xlplus", "publiclyAccessible": false}),
	]
	v := no_public_network.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == set()
}

test_fail_public_personal_data_stores if {
	resources := [
		_store(_db, "users", "personal", {"engine": "postgres", "instanceClass": "db.t4g.medium", "publiclyAccessible": true}),
		_store(_db, "hidden", "personal", {"engine": "postgres", "instanceClass": "db.t4g.medium", "publiclyAccessible": "[unknown]"}),
		_store(_aurora, "profiles", "personal", {"engine": "aurora-postgresql", "clusterIdentifier": "profiles"}),
		# an untagged instance of the personal-data cluster, tied by its clusterIdentifier
		fixtures.resource(_aurora_instance, "profiles-1", {"clusterIdentifier": "profiles", "instanceClass": "db.r6g.large", "engine": "aurora-postgresql", "publiclyAccessible": true}),
		_store("aws:redshift/cluster:Cluster", "warehouse", "personal", {"nodeType": "ra3.xlplus", "publiclyAccessible": true}),
		_store("aws:dms/replicationInstance:ReplicationInstance", "migrate", "personal", {"replicationInstanceClass": "dms.t3.medium", "replicationInstanceId": "migrate", "publiclyAccessible": "true"}),
	]
	v := no_public_network.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {
		_f(_db, "users", "personal-data database instance is publicly accessible (publiclyAccessible true): it gets a public endpoint"),
		_f(_db, "hidden", "personal-data database instance may be publicly accessible: publiclyAccessible is unknown until apply"),
		_f(_aurora_instance, "profiles-1", "personal-data database cluster instance is publicly accessible (publiclyAccessible true): it gets a public endpoint"),
		_f("aws:redshift/cluster:Cluster", "warehouse", "personal-data Redshift cluster is publicly accessible (publiclyAccessible true): it gets a public endpoint"),
		_f("aws:dms/replicationInstance:ReplicationInstance", "migrate", "personal-data DMS replication instance is publicly accessible (publiclyAccessible true): it gets a public endpoint"),
	}
}

# Internet-facing load balancers (internal defaults to false) in front of personal data: tagged
# personal, or forwarding to a target group that is tagged personal or where a personal-data
# autoscaling group or instance registers. One in front of public data is fine.
_lb_type := "aws:lb/loadBalancer:LoadBalancer"

_lb(name, inputs) := fixtures.resource(_lb_type, name, object.union({"loadBalancerType": "application", "subnets": ["subnet-1", "subnet-2"]}, inputs))

_tg(name, tags) := object.union(fixtures.resource("aws:lb/targetGroup:TargetGroup", name, {"port": 443, "protocol": "HTTPS", "vpcId": "vpc-1", "tags": tags}), {"id": sprintf("arn:aws:elasticloadbalancing:eu-central-1:111122223333:targetgroup/%s/0123456789abcdef", [name])})

_tg_arn(name) := sprintf("arn:aws:elasticloadbalancing:eu-central-1:111122223333:targetgroup/%s/0123456789abcdef", [name])

_listener(name, lb, tg) := fixtures.resource("aws:lb/listener:Listener", name, {
	"loadBalancerArn": sprintf("%s-id", [lb]),
	"port": 443,
	"protocol": "HTTPS",
	"defaultActions": [{"type": "forward", "targetGroupArn": _tg_arn(tg)}],
})

_with_id(r) := object.union(r, {"id": sprintf("%s-id", [r.name])})

_asg(name, data_class, tg) := fixtures.resource("aws:autoscaling/group:Group", name, {
	"minSize": 1,
	"maxSize": 2,
	"targetGroupArns": [_tg_arn(tg)],
	"tags": [{"key": "data-class", "value": data_class, "propagateAtLaunch": true}],
})

test_pass_internal_or_public_data_load_balancers if {
	resources := [
		_with_id(_lb("private", {"internal": true, "tags": fixtures.tags("personal")})),
		_with_id(_lb("site", {"internal": false})),
		_tg("site-tg", fixtures.tags("public")),
		_listener("site-https", "site", "site-tg"),
		_asg("web", "public", "site-tg"),
	]
	v := no_public_network.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == set()
}

test_fail_internet_load_balancers_of_personal_data if {
	resources := [
		_with_id(_lb("tagged", {"tags": fixtures.tags("personal")})),
		_with_id(_lb("api", {"internal": false})),
		_tg("api-tg", {}),
		_listener("api-https", "api", "api-tg"),
		object.union(_listener("api-admin", "api", "api-tg"), {"inputs": {"port": 8443}}),
		_asg("inference", "personal", "api-tg"),
		_with_id(_lb("portal", {"internal": false})),
		_tg("portal-tg", fixtures.tags("personal")),
		object.union(_listener("portal-http", "portal", "portal-tg"), {"inputs": {"port": 80, "protocol": "HTTP"}}),
	]
	v := no_public_network.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {
		_f(_lb_type, "tagged", "load balancer is internet-facing (internal not true) and fronts personal data: it is tagged data-class personal; it is not shown to answer on 443 only: the document holds no listener of it"),
		_f(_lb_type, "api", "load balancer is internet-facing (internal not true) and fronts personal data: it forwards to target group api-tg, where personal-data autoscaling group inference registers; it is not shown to answer on 443 only: listener api-admin on port 8443"),
		_f(_lb_type, "portal", "load balancer is internet-facing (internal not true) and fronts personal data: it forwards to target group portal-tg, tagged data-class personal; it is not shown to answer on 443 only: listener portal-http on port 80"),
	}
}

# The control catalog admits world ingress on 443 to an internet load balancer: one in front of
# personal data passes when every listener that may carry data is on 443. A port-80 listener that
# only redirects to HTTPS carries none (red team: the usual ALB, 443 plus a redirect on 80).
test_pass_internet_load_balancer_of_personal_data_on_443_only if {
	resources := [
		_with_id(_lb("portal", {"internal": false})),
		_tg("portal-tg", fixtures.tags("personal")),
		_listener("portal-https", "portal", "portal-tg"),
		fixtures.resource("aws:lb/listener:Listener", "portal-redirect", {
			"loadBalancerArn": "portal-id",
			"port": 80,
			"protocol": "HTTP",
			"defaultActions": [{"type": "redirect", "redirect": {"protocol": "HTTPS", "port": "443", "statusCode": "HTTP_301"}}],
		}),
		_with_id(_lb("other", {"internal": false})),
		object.union(_listener("other-http", "other", "portal-tg"), {"inputs": {"loadBalancerArn": "other-id", "port": 8080}}),
	]
	v := no_public_network.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	# the other load balancer forwards to the same personal target group on 8080: only it is reported
	v == {_f(_lb_type, "other", "load balancer is internet-facing (internal not true) and fronts personal data: it forwards to target group portal-tg, tagged data-class personal; it is not shown to answer on 443 only: listener other-http on port 8080")}
}

# a port the document does not show, a listener that may belong to the load balancer (its
# loadBalancerArn unknown until apply), and classic load balancers: listeners on other ports, or
# listeners the document does not show
test_fail_internet_load_balancer_ports_not_established if {
	resources := [
		_with_id(_lb("portal", {"internal": false})),
		_tg("portal-tg", fixtures.tags("personal")),
		object.union(_listener("portal-https", "portal", "portal-tg"), {"inputs": {"port": "[unknown]"}}),
		fixtures.resource("aws:lb/listener:Listener", "loose", {"loadBalancerArn": "[unknown]", "port": 8080, "protocol": "HTTP", "defaultActions": []}),
		fixtures.resource("aws:lb/listener:Listener", "loose-443", {"loadBalancerArn": "[unknown]", "port": 443, "protocol": "HTTPS", "defaultActions": []}),
		fixtures.resource(_classic, "classic", {"instances": ["db-host-id"], "listeners": [
			{"lbPort": 443, "lbProtocol": "HTTPS", "instancePort": 8443, "instanceProtocol": "HTTPS"},
			{"lbPort": 8080, "lbProtocol": "HTTP", "instancePort": 8080, "instanceProtocol": "HTTP"},
		]}),
		fixtures.resource(_classic, "classic-443", {"instances": ["db-host-id"], "listeners": [{"lbPort": 443, "lbProtocol": "HTTPS", "instancePort": 8443, "instanceProtocol": "HTTPS"}]}),
		fixtures.resource(_classic, "classic-secret", {"instances": ["db-host-id"], "listeners": "[secret]"}),
		object.union(fixtures.resource("aws:ec2/instance:Instance", "db-host", {"tags": fixtures.tags("personal"), "associatePublicIpAddress": false, "subnetId": "subnet-1"}), {"id": "db-host-id"}),
	]
	v := no_public_network.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {
		_f(_lb_type, "portal", "load balancer is internet-facing (internal not true) and fronts personal data: it forwards to target group portal-tg, tagged data-class personal; it is not shown to answer on 443 only: listener loose (its loadBalancerArn is unknown until apply, so it may be this load balancer's) on port 8080; listener portal-https: its port is unknown until apply"),
		_f(_classic, "classic", "load balancer is internet-facing (internal not true) and fronts personal data: personal-data db-host is registered with it; it is not shown to answer on 443 only: a listener on port 8080"),
		_f(_classic, "classic-secret", "load balancer is internet-facing (internal not true) and fronts personal data: personal-data db-host is registered with it; it is not shown to answer on 443 only: its listeners are secret"),
	}
}

_classic := "aws:elb/loadBalancer:LoadBalancer"

# red team F10: personal data that names no subnet lands in a default subnet of the default VPC,
# which maps public IPs on launch; so does one in an adopted default subnet that maps them.
# associatePublicIpAddress false, or a default subnet set not to map them, keeps it private.
test_fail_personal_instance_in_a_default_subnet if {
	resources := [
		fixtures.resource("aws:ec2/instance:Instance", "vm", {"tags": fixtures.tags("personal")}),
		fixtures.resource("aws:ec2/instance:Instance", "private", {"tags": fixtures.tags("personal"), "associatePublicIpAddress": false}),
		fixtures.resource("aws:ec2/instance:Instance", "public-data", {"tags": fixtures.tags("public")}),
		fixtures.resource("aws:ec2/defaultSubnet:DefaultSubnet", "default-a", {"availabilityZone": "eu-central-1a"}),
		fixtures.resource("aws:ec2/defaultSubnet:DefaultSubnet", "default-b", {"availabilityZone": "eu-central-1b", "mapPublicIpOnLaunch": false}),
		fixtures.resource("aws:ec2/instance:Instance", "in-a", {"tags": fixtures.tags("personal"), "subnetId": "default-a-1a2b3c4d"}),
		fixtures.resource("aws:ec2/instance:Instance", "in-b", {"tags": fixtures.tags("personal"), "subnetId": "default-b-1a2b3c4d"}),
	]
	v := no_public_network.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {
		_f("aws:ec2/instance:Instance", "vm", "personal-data instance names no subnet: EC2 launches it into a default subnet of the default VPC, which maps public IPs on launch, so it gets a public IP; name a private subnet of the stack (or set associatePublicIpAddress false)"),
		_f("aws:ec2/instance:Instance", "in-a", "personal-data instance runs in default subnet default-a, which maps public IPs on launch unless mapPublicIpOnLaunch is false: it gets a public IP"),
	}
}

# red team: a listener whose loadBalancerArn is unknown until apply may be this load balancer's
# unless its dependencies tie it to another load balancer of the document: a dependency on a
# parameter (or an empty list) ties it to none
_hidden_listener(name, deps) := object.union(fixtures.resource("aws:lb/listener:Listener", name, {"loadBalancerArn": "[unknown]", "port": 8080, "protocol": "HTTP", "defaultActions": []}), {"property_dependencies": {"loadBalancerArn": deps}})

test_fail_listener_with_hidden_load_balancer_tied_to_no_load_balancer if {
	resources := [
		_with_id(_lb("portal", {"internal": false})),
		_tg("portal-tg", fixtures.tags("personal")),
		_listener("portal-https", "portal", "portal-tg"),
		fixtures.resource("aws:ssm/parameter:Parameter", "lb-arn", {"type": "String", "value": "[unknown]"}),
		_hidden_listener("via-param", [fixtures.urn("aws:ssm/parameter:Parameter", "lb-arn")]),
		_hidden_listener("no-deps", []),
	]
	v := no_public_network.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {_f(_lb_type, "portal", "load balancer is internet-facing (internal not true) and fronts personal data: it forwards to target group portal-tg, tagged data-class personal; it is not shown to answer on 443 only: listener no-deps (its loadBalancerArn is unknown until apply, so it may be this load balancer's) on port 8080; listener via-param (its loadBalancerArn is unknown until apply, so it may be this load balancer's) on port 8080")}
}

test_pass_listener_with_hidden_load_balancer_tied_to_another if {
	resources := [
		_with_id(_lb("portal", {"internal": false})),
		_tg("portal-tg", fixtures.tags("personal")),
		_listener("portal-https", "portal", "portal-tg"),
		_with_id(_lb("other", {"internal": true})),
		_hidden_listener("other-http", [fixtures.urn(_lb_type, "other")]),
	]
	v := no_public_network.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == set()
}

# red team: an autoscaling group registers with a load balancer through trafficSources (an
# identifier naming a target group ARN or a classic load balancer, or the input's dependency), a
# TrafficSourceAttachment, or, for a classic load balancer, an autoscaling Attachment's elb; an
# instance through an elb Attachment
_group(name, data_class, inputs) := fixtures.resource("aws:autoscaling/group:Group", name, object.union({
	"minSize": 1,
	"maxSize": 2,
	"tags": [{"key": "data-class", "value": data_class, "propagateAtLaunch": true}],
}, inputs))

_open_lb(name, tg) := [
	_with_id(_lb(name, {"internal": false})),
	_tg(tg, {}),
	object.union(_listener(sprintf("%s-http", [name]), name, tg), {"inputs": {"port": 8080}}),
]

_open_classic(name) := object.union(fixtures.resource(_classic, name, {"listeners": [{"lbPort": 8080, "lbProtocol": "HTTP", "instancePort": 8080, "instanceProtocol": "HTTP"}]}), {"id": sprintf("%s-id", [name])})

_lb_finding(name, why, port) := _f(_lb_type, name, sprintf("load balancer is internet-facing (internal not true) and fronts personal data: %s; it is not shown to answer on 443 only: listener %s-http on port %d", [why, name, port]))

_classic_finding(name, why) := _f(_classic, name, sprintf("load balancer is internet-facing (internal not true) and fronts personal data: %s; it is not shown to answer on 443 only: a listener on port 8080", [why]))

test_fail_groups_registered_through_traffic_sources if {
	asg_urn := fixtures.urn("aws:autoscaling/group:Group", "by-attachment")
	resources := array.concat(array.concat(array.concat(_open_lb("a", "a-tg"), _open_lb("b", "b-tg")), _open_lb("c", "c-tg")), [
		_group("by-value", "personal", {"trafficSources": [{"identifier": _tg_arn("a-tg"), "type": "elbv2"}]}),
		object.union(_group("by-dependency", "personal", {"trafficSources": [{"identifier": "[unknown]", "type": "elbv2"}]}), {"property_dependencies": {"trafficSources": [fixtures.urn("aws:lb/targetGroup:TargetGroup", "b-tg")]}}),
		object.union(_group("by-attachment", "personal", {}), {"id": "by-attachment-id"}),
		fixtures.resource("aws:autoscaling/trafficSourceAttachment:TrafficSourceAttachment", "tsa", {"autoscalingGroupName": "by-attachment-id", "trafficSource": {"identifier": _tg_arn("c-tg"), "type": "elbv2"}}),
		_open_classic("d"),
		_group("to-classic", "personal", {"trafficSources": [{"identifier": "d-id", "type": "elb"}]}),
		_open_classic("e"),
		object.union(_group("attached", "personal", {}), {"id": "attached-id"}),
		fixtures.resource("aws:autoscaling/attachment:Attachment", "att", {"autoscalingGroupName": "attached-id", "elb": "e-id"}),
		_open_classic("f"),
		object.union(fixtures.resource("aws:ec2/instance:Instance", "db-host", {"tags": fixtures.tags("personal"), "associatePublicIpAddress": false, "subnetId": "subnet-1"}), {"id": "db-host-id"}),
		object.union(fixtures.resource("aws:elb/attachment:Attachment", "elb-att", {"elb": "[unknown]", "instance": "db-host-id"}), {"property_dependencies": {"elb": [fixtures.urn(_classic, "f")]}}),
	])
	v := no_public_network.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {
		_lb_finding("a", "it forwards to target group a-tg, where personal-data autoscaling group by-value registers", 8080),
		_lb_finding("b", "it forwards to target group b-tg, where personal-data autoscaling group by-dependency registers", 8080),
		_lb_finding("c", "it forwards to target group c-tg, where personal-data autoscaling group by-attachment registers", 8080),
		_classic_finding("d", "personal-data to-classic is registered with it"),
		_classic_finding("e", "personal-data attached is registered with it"),
		_classic_finding("f", "personal-data db-host is registered with it"),
	}
	# near miss: the same registrations of public-data groups and instances
	public := [r | some r in resources; r.type != "aws:autoscaling/group:Group"; r.type != "aws:ec2/instance:Instance"]
	groups := [object.union(r, {"inputs": {"tags": [{"key": "data-class", "value": "public", "propagateAtLaunch": true}]}}) | some r in resources; r.type in {"aws:autoscaling/group:Group", "aws:ec2/instance:Instance"}]
	w := no_public_network.violation with input as fixtures.gate_input(fixtures.gdpr_policy, array.concat(public, groups))
	w == set()
}

# red team: a group without a data-class tag of its own whose launch template (of the document) is
# tagged personal, or tags its instances personal (tagSpecifications), puts personal data behind the
# load balancer; one launching from a public-data template does not
_template(name, tags, specs) := object.union(fixtures.resource("aws:ec2/launchTemplate:LaunchTemplate", name, {
	"tags": tags,
	"tagSpecifications": specs,
	"networkInterfaces": [{"associatePublicIpAddress": "false", "subnetId": "subnet-1"}],
}), {"id": sprintf("lt-%s", [name])})

_untagged_group(name, lt) := fixtures.resource("aws:autoscaling/group:Group", name, {
	"minSize": 1,
	"maxSize": 2,
	"vpcZoneIdentifiers": ["subnet-1"],
	"mixedInstancesPolicy": {"launchTemplate": {"launchTemplateSpecification": {"launchTemplateId": sprintf("lt-%s", [lt]), "version": "1"}}},
	"targetGroupArns": [_tg_arn(sprintf("%s-tg", [name]))],
})

test_fail_untagged_group_launching_personal_instances if {
	resources := array.concat(array.concat(array.concat(_open_lb("a", "a-tg"), _open_lb("b", "b-tg")), _open_lb("c", "c-tg")), [
		_template("personal-lt", fixtures.tags("personal"), []),
		_template("spec-lt", fixtures.tags("public"), [{"resourceType": "volume", "tags": {"data-class": "public"}}, {"resourceType": "instance", "tags": {"data-class": "personal"}}]),
		_template("public-lt", fixtures.tags("public"), [{"resourceType": "instance", "tags": {"data-class": "public"}}, {"resourceType": "volume", "tags": {"data-class": "personal"}}]),
		_untagged_group("a", "personal-lt"),
		_untagged_group("b", "spec-lt"),
		_untagged_group("c", "public-lt"),
	])
	v := no_public_network.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {
		_lb_finding("a", "it forwards to target group a-tg, where personal-data autoscaling group a (it launches from personal-data launch template personal-lt) registers", 8080),
		_lb_finding("b", "it forwards to target group b-tg, where personal-data autoscaling group b (it launches from personal-data launch template spec-lt) registers", 8080),
	}
}

# red team: server-side patches are judged by what they set. A ServicePatch setting type
# LoadBalancer without an internal scheme may make the Service internet-facing; an IngressPatch or
# IngressClassParamsPatch setting scheme internet-facing (or one not shown) makes its object so. A
# patch that leaves the type or scheme alone, or sets them internal, is not reported.
test_fail_patches_that_expose if {
	resources := [
		fixtures.resource("kubernetes:core/v1:ServicePatch", "svc", {"metadata": {"name": "svc"}, "spec": {"type": "LoadBalancer", "ports": [{"port": 443}]}}),
		fixtures.resource("kubernetes:core/v1:ServicePatch", "svc-hidden", {"metadata": {"name": "svc-hidden"}, "spec": {"type": "[unknown]"}}),
		fixtures.resource("kubernetes:networking.k8s.io/v1:IngressPatch", "ing", {"metadata": {"name": "ing", "annotations": {"alb.ingress.kubernetes.io/scheme": "internet-facing"}}}),
		fixtures.resource("kubernetes:networking.k8s.io/v1:IngressPatch", "ing-hidden", {"metadata": {"name": "ing-hidden", "annotations": "[secret]"}}),
		fixtures.resource("kubernetes:elbv2.k8s.aws/v1beta1:IngressClassParamsPatch", "params", {"metadata": {"name": "params"}, "spec": {"scheme": "internet-facing"}}),
	]
	v := no_public_network.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == {
		_f("kubernetes:core/v1:ServicePatch", "svc", "Service patch sets type LoadBalancer and no internal aws-load-balancer-scheme annotation: the Service may be internet-facing"),
		_f("kubernetes:core/v1:ServicePatch", "svc-hidden", "Service type is unknown until apply, so it may be an internet-facing LoadBalancer"),
		_f("kubernetes:networking.k8s.io/v1:IngressPatch", "ing", "Ingress is internet-facing (alb.ingress.kubernetes.io/scheme)"),
		_f("kubernetes:networking.k8s.io/v1:IngressPatch", "ing-hidden", "Ingress scheme (alb.ingress.kubernetes.io/scheme) is secret, so it may be internet-facing"),
		_f("kubernetes:elbv2.k8s.aws/v1beta1:IngressClassParamsPatch", "params", "IngressClassParams sets scheme internet-facing: every Ingress of the IngressClasses that name it gets that scheme, whatever its alb.ingress.kubernetes.io/scheme annotation says"),
	}
}

test_pass_patches_that_leave_exposure_alone if {
	resources := [
		fixtures.resource("kubernetes:core/v1:ServicePatch", "labels-only", {"metadata": {"name": "svc", "labels": {"app": "api"}}}),
		fixtures.resource("kubernetes:core/v1:ServicePatch", "internal", {"metadata": {"name": "svc", "annotations": {_scheme: "internal"}}, "spec": {"type": "LoadBalancer"}}),
		fixtures.resource("kubernetes:networking.k8s.io/v1:IngressPatch", "ing", {"metadata": {"name": "ing", "annotations": {"alb.ingress.kubernetes.io/group.name": "web"}}}),
		fixtures.resource("kubernetes:networking.k8s.io/v1:IngressPatch", "ing-internal", {"metadata": {"name": "ing", "annotations": {"alb.ingress.kubernetes.io/scheme": "internal"}}}),
		fixtures.resource("kubernetes:elbv2.k8s.aws/v1beta1:IngressClassParamsPatch", "params", {"metadata": {"name": "params"}, "spec": {"group": {"name": "web"}}}),
	]
	v := no_public_network.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == set()
}

# red team (false positives): a Service the AWS Load Balancer Controller serves (its class, or the
# aws-load-balancer-type annotation external / nlb-ip) without a scheme annotation gets an internal
# NLB (the controller's default since v2.2.0); the in-tree controller's default is internet-facing
test_aws_load_balancer_controller_services_default_to_internal if {
	class := json.patch(_svc("by-class", {}), [{"op": "add", "path": "/inputs/spec/loadBalancerClass", "value": "service.k8s.aws/nlb"}])
	resources := [
		class,
		_svc("external", {"service.beta.kubernetes.io/aws-load-balancer-type": "external"}),
		_svc("nlb-ip", {"service.beta.kubernetes.io/aws-load-balancer-type": "nlb-ip"}),
		_svc("external-public", {"service.beta.kubernetes.io/aws-load-balancer-type": "external", _scheme: "internet-facing"}),
		_svc("in-tree", {"service.beta.kubernetes.io/aws-load-balancer-type": "nlb"}),
	]
	v := no_public_network.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	{f.resource_name | some f in v} == {"external-public", "in-tree"}
}

# red team (false positive): a gateway load balancer has no scheme (only its endpoints reach it), and
# its listener names no port
test_a_gateway_load_balancer_is_not_internet_facing if {
	resources := [
		_with_id(_lb("inspect", {"loadBalancerType": "gateway"})),
		_tg("inspect-tg", fixtures.tags("personal")),
		fixtures.resource("aws:lb/listener:Listener", "inspect-listener", {
			"loadBalancerArn": "inspect-id",
			"defaultActions": [{"type": "forward", "targetGroupArn": _tg_arn("inspect-tg")}],
		}),
	]
	v := no_public_network.violation with input as fixtures.gate_input(fixtures.gdpr_policy, resources)
	v == set()
}

