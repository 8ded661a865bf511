package mlps.intrusion_prevention_test

import data.mlps.intrusion_prevention
import data.lib.fixtures

_f(type, name, msg) := fixtures.finding("MLPS-L3-8.1.4.4ab", "mandatory", type, name, msg)

_job(name, spec) := fixtures.resource("kubernetes:batch/v1:Job", name, {"metadata": {"namespace": "batch"}, "spec": {"template": {"spec": spec}}})

_hardened := {"containers": [{"name": "embed", "image": "x", "securityContext": {"capabilities": {"drop": ["ALL"]}, "readOnlyRootFilesystem": true, "privileged": false}}]}

test_pass_hardened if {
	v := intrusion_prevention.violation with input as fixtures.gate_input(fixtures.mlps_policy, [_job("embed", _hardened)])
	v == set()
}

test_fail_exposed_and_soft if {
	sg := fixtures.security_group("db", [{"protocol": "tcp", "fromPort": 6379, "toPort": 6379, "cidrBlocks": ["0.0.0.0/0"]}], [])
	job := _job("embed", {"hostNetwork": true, "containers": [{"name": "embed", "image": "x"}]})
	v := intrusion_prevention.violation with input as fixtures.gate_input(fixtures.mlps_policy, [sg, job])
	v == {
		_f("aws:ec2/securityGroup:SecurityGroup", "db", "security group exposes high-risk port 6379 to the internet"),
		_f("kubernetes:batch/v1:Job", "embed", "container embed: uses the host network"),
		_f("kubernetes:batch/v1:Job", "embed", "container embed: does not drop ALL capabilities"),
		_f("kubernetes:batch/v1:Job", "embed", "container embed: root filesystem is writable"),
	}
}

# audit A10: the default security group's rules; audit A11: an internet-facing LoadBalancer Service
test_fail_default_security_group_and_load_balancer_service if {
	sg := fixtures.resource("aws:ec2/defaultSecurityGroup:DefaultSecurityGroup", "default", {
		"vpcId": "vpc-0123456789abcdef0",
		"ingress": [{"protocol": "tcp", "fromPort": 5432, "toPort": 5432, "cidrBlocks": ["0.0.0.0/0"]}],
	})
	svc := fixtures.resource("kubernetes:core/v1:Service", "cache", {
		"metadata": {"name": "cache", "namespace": "inference"},
		"spec": {"type": "LoadBalancer", "ports": [{"port": 6379}, {"port": 443}]},
	})
	restricted := fixtures.resource("kubernetes:core/v1:Service", "office", {
		"metadata": {"name": "office", "namespace": "inference"},
		"spec": {"type": "LoadBalancer", "ports": [{"port": 22}], "loadBalancerSourceRanges": ["203.0.113.0/24"]},
	})
	# source ranges that together cover the internet restrict nothing
	halves := fixtures.resource("kubernetes:core/v1:Service", "halves", {
		"metadata": {"name": "halves", "namespace": "inference"},
		"spec": {"type": "LoadBalancer", "ports": [{"port": 9200}], "loadBalancerSourceRanges": ["0.0.0.0/1", "128.0.0.0/1"]},
	})
	v := intrusion_prevention.violation with input as fixtures.gate_input(fixtures.mlps_policy, [sg, svc, restricted, halves])
	v == {
		_f("aws:ec2/defaultSecurityGroup:DefaultSecurityGroup", "default", "security group exposes high-risk port 5432 to the internet"),
		_f("kubernetes:core/v1:Service", "cache", "internet-facing LoadBalancer Service exposes high-risk port 6379"),
		_f("kubernetes:core/v1:Service", "halves", "internet-facing LoadBalancer Service exposes high-risk port 9200"),
	}
}

# audit A11: a ReplicaSet's pods are workloads too
test_fail_replica_set_hardening if {
	rs := fixtures.resource("kubernetes:apps/v1:ReplicaSet", "rs", {"metadata": {"namespace": "batch"}, "spec": {"template": {"spec": {
		"hostNetwork": true,
		"containers": [{"name": "scraper", "image": "x", "securityContext": {"capabilities": {"drop": ["ALL"]}, "readOnlyRootFilesystem": true}}],
	}}}})
	v := intrusion_prevention.violation with input as fixtures.gate_input(fixtures.mlps_policy, [rs])
	v == {_f("kubernetes:apps/v1:ReplicaSet", "rs", "container scraper: uses the host network")}
}

# a given security group (read from EC2) exposing SSH, on the launch template whose nodes carry it
test_fail_given_group_exposes_high_risk_port if {
	resources := [fixtures.launch_template("nodes", "internal", {"vpcSecurityGroupIds": [fixtures.ssh_sg]})]
	v := intrusion_prevention.violation with input as fixtures.gate_input_with_given_groups(fixtures.mlps_policy, resources)
	v == {_f("aws:ec2/launchTemplate:LaunchTemplate", "nodes", sprintf("its security group %s (bastion, read from EC2) exposes high-risk port 22 to the internet", [fixtures.ssh_sg]))}
}

# the pods of AI workload custom resources are workloads too: each embedded pod spec is checked
# (a PyTorchJob's master and workers, a RayCluster's head and worker groups, a JobSet's replicated
# jobs, a LeaderWorkerSet's leader and workers, a Volcano job's tasks), and a custom resource of
# another group (the GPU operator's ClusterPolicy) is not read as one
test_fail_ai_workload_custom_resources if {
	soft := {"containers": [{"name": "trainer", "image": "x"}]}
	privileged := {"containers": [{"name": "trainer", "image": "x", "securityContext": {"privileged": true, "capabilities": {"drop": ["ALL"]}, "readOnlyRootFilesystem": true}}]}
	pytorch := fixtures.resource("kubernetes:kubeflow.org/v1:PyTorchJob", "ft", {"metadata": {"namespace": "batch"}, "spec": {"pytorchReplicaSpecs": {
		"Master": {"replicas": 1, "template": {"spec": _hardened}},
		"Worker": {"replicas": 3, "template": {"spec": privileged}},
	}}})
	ray := fixtures.resource("kubernetes:ray.io/v1:RayCluster", "serve", {"metadata": {"namespace": "batch"}, "spec": {
		"headGroupSpec": {"template": {"spec": _hardened}},
		"workerGroupSpecs": [{"groupName": "gpu", "template": {"spec": {"hostNetwork": true, "containers": _hardened.containers}}}],
	}})
	jobset := fixtures.resource("kubernetes:jobset.x-k8s.io/v1alpha2:JobSet", "pretrain", {"metadata": {"namespace": "batch"}, "spec": {"replicatedJobs": [
		{"name": "workers", "template": {"spec": {"template": {"spec": soft}}}},
	]}})
	lws := fixtures.resource("kubernetes:leaderworkerset.x-k8s.io/v1:LeaderWorkerSet", "llm", {"metadata": {"namespace": "batch"}, "spec": {"leaderWorkerTemplate": {
		"leaderTemplate": {"spec": _hardened},
		"workerTemplate": {"spec": {"hostPID": true, "containers": _hardened.containers}},
	}}})
	volcano := fixtures.resource("kubernetes:batch.volcano.sh/v1alpha1:Job", "mpi", {"metadata": {"namespace": "batch"}, "spec": {"tasks": [
		{"name": "worker", "replicas": 2, "template": {"spec": privileged}},
	]}})
	operator := fixtures.resource("kubernetes:nvidia.com/v1:ClusterPolicy", "gpu", {"spec": {"dcgm": {"containers": [{"name": "dcgm", "image": "x"}]}}})
	v := intrusion_prevention.violation with input as fixtures.gate_input(fixtures.mlps_policy, [pytorch, ray, jobset, lws, volcano, operator])
	v == {
		_f("kubernetes:kubeflow.org/v1:PyTorchJob", "ft", "container Worker/trainer: runs privileged"),
		_f("kubernetes:ray.io/v1:RayCluster", "serve", "container workerGroupSpecs.gpu/embed: uses the host network"),
		_f("kubernetes:jobset.x-k8s.io/v1alpha2:JobSet", "pretrain", "container replicatedJobs.workers/trainer: does not drop ALL capabilities"),
		_f("kubernetes:jobset.x-k8s.io/v1alpha2:JobSet", "pretrain", "container replicatedJobs.workers/trainer: root filesystem is writable"),
		_f("kubernetes:leaderworkerset.x-k8s.io/v1:LeaderWorkerSet", "llm", "container leaderWorkerTemplate.workerTemplate/embed: shares the host PID namespace"),
		_f("kubernetes:batch.volcano.sh/v1alpha1:Job", "mpi", "container tasks.worker/trainer: runs privileged"),
	}
}

# replicas of one job with the same pod spec are each named: the finding says which pods it is about
# (a list element without a name is named by its position)
test_fail_same_pod_spec_in_two_replicas_named_apart if {
	privileged := {"containers": [{"name": "trainer", "image": "x", "securityContext": {"privileged": true, "capabilities": {"drop": ["ALL"]}, "readOnlyRootFilesystem": true}}]}
	job := fixtures.resource("kubernetes:kubeflow.org/v1:PyTorchJob", "ft", {"metadata": {"namespace": "batch"}, "spec": {"pytorchReplicaSpecs": {
		"Master": {"template": {"spec": privileged}},
		"Worker": {"template": {"spec": privileged}},
	}}})
	ray := fixtures.resource("kubernetes:ray.io/v1:RayCluster", "serve", {"metadata": {"namespace": "batch"}, "spec": {
		"workerGroupSpecs": [{"template": {"spec": _hardened}}, {"template": {"spec": privileged}}],
	}})
	v := intrusion_prevention.violation with input as fixtures.gate_input(fixtures.mlps_policy, [job, ray])
	v == {
		_f("kubernetes:kubeflow.org/v1:PyTorchJob", "ft", "container Master/trainer: runs privileged"),
		_f("kubernetes:kubeflow.org/v1:PyTorchJob", "ft", "container Worker/trainer: runs privileged"),
		_f("kubernetes:ray.io/v1:RayCluster", "serve", "container workerGroupSpecs.1/trainer: runs privileged"),
	}
}

# a pod spec, template or container list unknown until apply cannot be checked and is reported; a
# volume claim template unknown until apply is not a pod spec
test_fail_pod_specs_unknown_until_apply if {
	deploy := fixtures.resource("kubernetes:apps/v1:Deployment", "web", {"metadata": {"namespace": "batch"}, "spec": {"template": {"spec": "[unknown]"}}})
	job := fixtures.resource("kubernetes:kubeflow.org/v1:PyTorchJob", "ft", {"metadata": {"namespace": "batch"}, "spec": {"pytorchReplicaSpecs": {
		"Master": {"template": {"spec": _hardened}},
		"Worker": {"template": {"spec": {"containers": "[unknown]"}}},
	}}})
	ray := fixtures.resource("kubernetes:ray.io/v1:RayCluster", "serve", {"metadata": {"namespace": "batch"}, "spec": {"headGroupSpec": {"template": {"spec": _hardened}}, "workerGroupSpecs": "[unknown]"}})
	sts := fixtures.resource("kubernetes:apps/v1:StatefulSet", "db", {"metadata": {"namespace": "batch"}, "spec": {
		"template": {"spec": _hardened},
		"volumeClaimTemplates": [{"metadata": {"name": "data"}, "spec": "[unknown]"}],
	}})
	v := intrusion_prevention.violation with input as fixtures.gate_input(fixtures.mlps_policy, [deploy, job, ray, sts])
	v == {
		_f("kubernetes:apps/v1:Deployment", "web", "pod spec unknown until apply: its containers' hardening cannot be checked"),
		_f("kubernetes:kubeflow.org/v1:PyTorchJob", "ft", "pod spec unknown until apply: its containers' hardening cannot be checked"),
		_f("kubernetes:ray.io/v1:RayCluster", "serve", "pod spec unknown until apply: its containers' hardening cannot be checked"),
	}
}

# KServe's usual form: the model server's container sits inline under predictor.model (or a
# framework key) and the pod fields inline under predictor; Knative lets a container go unnamed
test_fail_kserve_inline_model_and_unnamed_containers if {
	isvc := fixtures.resource("kubernetes:serving.kserve.io/v1beta1:InferenceService", "llm", {"metadata": {"namespace": "batch"}, "spec": {"predictor": {
		"hostIPC": true,
		"model": {"modelFormat": {"name": "pytorch"}, "storageUri": "s3://m", "securityContext": {"privileged": true, "capabilities": {"drop": ["ALL"]}, "readOnlyRootFilesystem": true}},
	}}})
	knative := fixtures.resource("kubernetes:serving.knative.dev/v1:Service", "hello", {"metadata": {"namespace": "batch"}, "spec": {"template": {"spec": {"containers": [
		{"image": "x", "securityContext": {"capabilities": {"drop": ["ALL"]}, "readOnlyRootFilesystem": true, "procMount": "Unmasked"}},
	]}}}})
	v := intrusion_prevention.violation with input as fixtures.gate_input(fixtures.mlps_policy, [isvc, knative])
	v == {
		_f("kubernetes:serving.kserve.io/v1beta1:InferenceService", "llm", "container predictor/kserve-container: runs privileged"),
		_f("kubernetes:serving.kserve.io/v1beta1:InferenceService", "llm", "container predictor/kserve-container: shares the host IPC namespace"),
		_f("kubernetes:serving.knative.dev/v1:Service", "hello", "container (unnamed): mounts /proc unmasked (procMount Unmasked)"),
	}
}

# privileged, allowPrivilegeEscalation, readOnlyRootFilesystem and capabilities exist on containers
# only: a pod-level value is dropped by the API server and hardens nothing; the Pod Security
# Standards' baseline host paths, host ports and seccomp are checked
test_fail_pod_level_only_container_settings_and_host_access if {
	job := _job("embed", {
		"securityContext": {"readOnlyRootFilesystem": true, "seccompProfile": {"type": "Unconfined"}},
		"volumes": [{"name": "root", "hostPath": {"path": "/"}}, {"name": "data", "emptyDir": {}}],
		"containers": [
			{"name": "embed", "image": "x", "ports": [{"containerPort": 80, "hostPort": 8080}], "volumeMounts": [{"name": "root", "mountPath": "/host"}, {"name": "data", "mountPath": "/data"}], "securityContext": {"capabilities": {"drop": ["ALL"]}}},
			# mounts no host path: the volume is not blamed on it
			{"name": "metrics", "image": "x", "volumeMounts": [{"name": "data", "mountPath": "/data"}], "securityContext": {"capabilities": {"drop": ["ALL"]}, "readOnlyRootFilesystem": true, "seccompProfile": {"type": "RuntimeDefault"}}},
		],
	})
	v := intrusion_prevention.violation with input as fixtures.gate_input(fixtures.mlps_policy, [job])
	v == {
		_f("kubernetes:batch/v1:Job", "embed", "container embed: root filesystem is writable"),
		_f("kubernetes:batch/v1:Job", "embed", "container embed: mounts host path /"),
		_f("kubernetes:batch/v1:Job", "embed", "container embed: binds host port 8080"),
		_f("kubernetes:batch/v1:Job", "embed", "container embed: runs without seccomp (Unconfined)"),
	}
}

# settings unknown until apply count as the weak value, and a capability list unknown until apply
# no longer stops the gate
test_fail_security_settings_unknown_until_apply if {
	job := _job("embed", {"hostNetwork": "[unknown]", "volumes": "[unknown]", "containers": [{"name": "embed", "image": "x", "ports": "[unknown]", "volumeMounts": [{"name": "v", "mountPath": "/v"}], "securityContext": {
		"privileged": "[unknown]", "readOnlyRootFilesystem": "[unknown]", "capabilities": {"drop": ["ALL"], "add": "[unknown]"},
		"seccompProfile": {"type": "[unknown]"}, "procMount": "[unknown]",
	}}]})
	v := intrusion_prevention.violation with input as fixtures.gate_input(fixtures.mlps_policy, [job])
	v == {
		_f("kubernetes:batch/v1:Job", "embed", "container embed: may run privileged (privileged unknown until apply)"),
		_f("kubernetes:batch/v1:Job", "embed", "container embed: uses the host network (hostNetwork unknown until apply)"),
		_f("kubernetes:batch/v1:Job", "embed", "container embed: may add capabilities (unknown until apply)"),
		_f("kubernetes:batch/v1:Job", "embed", "container embed: root filesystem is writable (readOnlyRootFilesystem unknown until apply)"),
		_f("kubernetes:batch/v1:Job", "embed", "container embed: may mount host paths (volumes unknown until apply)"),
		_f("kubernetes:batch/v1:Job", "embed", "container embed: may bind host ports (ports unknown until apply)"),
		_f("kubernetes:batch/v1:Job", "embed", "container embed: may run without seccomp (seccompProfile unknown until apply)"),
		_f("kubernetes:batch/v1:Job", "embed", "container embed: may mount /proc unmasked (procMount unknown until apply)"),
	}
}

# a secret setting is hidden from the gate like one unknown until apply: judged as the weak value,
# and the message says it is secret
test_fail_security_settings_secret if {
	job := _job("embed", {"hostPID": "[secret]", "containers": [{"name": "embed", "image": "x", "securityContext": {
		"privileged": "[secret]", "readOnlyRootFilesystem": true, "capabilities": {"drop": ["ALL"]},
		"seccompProfile": {"type": "RuntimeDefault"}, "procMount": "[secret]",
	}}]})
	v := intrusion_prevention.violation with input as fixtures.gate_input(fixtures.mlps_policy, [job])
	v == {
		_f("kubernetes:batch/v1:Job", "embed", "container embed: may run privileged (privileged secret)"),
		_f("kubernetes:batch/v1:Job", "embed", "container embed: shares the host PID namespace (hostPID secret)"),
		_f("kubernetes:batch/v1:Job", "embed", "container embed: may mount /proc unmasked (procMount secret)"),
	}
}

# whole templates unknown until apply at other places (a replica spec, a list element, a Ray
# service's cluster, a KServe model) are reported; annotations and OpenKruise subset patches are
# not pod specs
test_fail_more_pod_templates_unknown_until_apply if {
	pytorch := fixtures.resource("kubernetes:kubeflow.org/v1:PyTorchJob", "ft", {"metadata": {"namespace": "batch"}, "spec": {"pytorchReplicaSpecs": {"Master": {"template": {"spec": _hardened}}, "Worker": "[unknown]"}}})
	volcano := fixtures.resource("kubernetes:batch.volcano.sh/v1alpha1:Job", "mpi", {"metadata": {"namespace": "batch"}, "spec": {"tasks": ["[unknown]"]}})
	rayservice := fixtures.resource("kubernetes:ray.io/v1:RayService", "serve", {"metadata": {"namespace": "batch"}, "spec": {"rayClusterConfig": "[unknown]", "serveConfigV2": "[unknown]"}})
	isvc := fixtures.resource("kubernetes:serving.kserve.io/v1beta1:InferenceService", "llm", {"metadata": {"namespace": "batch"}, "spec": {"predictor": {"model": "[unknown]"}}})
	annotated := fixtures.resource("kubernetes:apps/v1:Deployment", "web", {"metadata": {"namespace": "batch"}, "spec": {"template": {
		"metadata": {"annotations": {"example.com/configSpec": "[unknown]"}},
		"spec": _hardened,
	}}})
	united := fixtures.resource("kubernetes:apps.kruise.io/v1alpha1:UnitedDeployment", "ud", {"metadata": {"namespace": "batch"}, "spec": {
		"template": {"cloneSetTemplate": {"spec": {"template": {"spec": _hardened}}}},
		"topology": {"subsets": [{"name": "a", "patch": {"spec": {"template": {"spec": {"containers": [{"name": "embed", "resources": {}}]}}}}}]},
	}})
	v := intrusion_prevention.violation with input as fixtures.gate_input(fixtures.mlps_policy, [pytorch, volcano, rayservice, isvc, annotated, united])
	v == {
		_f("kubernetes:kubeflow.org/v1:PyTorchJob", "ft", "pod spec unknown until apply: its containers' hardening cannot be checked"),
		_f("kubernetes:batch.volcano.sh/v1alpha1:Job", "mpi", "pod spec unknown until apply: its containers' hardening cannot be checked"),
		_f("kubernetes:ray.io/v1:RayService", "serve", "pod spec unknown until apply: its containers' hardening cannot be checked"),
		_f("kubernetes:serving.kserve.io/v1beta1:InferenceService", "llm", "pod spec unknown until apply: its containers' hardening cannot be checked"),
	}
}

# an OpenKruise UnitedDeployment's subset patch is merged into the template (containers by name,
# new ones added): what it makes privileged runs privileged; a patch unknown until apply is
# reported. KServe's multi-node workers (predictor.workerSpec) are pods too.
test_fail_united_deployment_patches_and_kserve_workers if {
	united := fixtures.resource("kubernetes:apps.kruise.io/v1alpha1:UnitedDeployment", "ud", {"metadata": {"namespace": "batch"}, "spec": {
		"template": {"cloneSetTemplate": {"spec": {"template": {"spec": _hardened}}}},
		"topology": {"subsets": [
			# OpenKruise's form: a patch of the pod template, whose spec patches the pod spec
			{"name": "a", "patch": {"metadata": {"labels": {"zone": "a"}}, "spec": {"hostNetwork": true, "containers": [{"name": "embed", "securityContext": {"privileged": true}}]}}},
			{"name": "b", "patch": "[unknown]"},
			{"name": "c", "patch": {"spec": {"template": {"spec": {"hostPID": true}}}}},
			# pod fields beside a template key are applied too
			{"name": "d", "patch": {"spec": {"hostIPC": true, "template": {}}}},
		]},
	}})
	isvc := fixtures.resource("kubernetes:serving.kserve.io/v1beta1:InferenceService", "llm", {"metadata": {"namespace": "batch"}, "spec": {"predictor": {
		"model": {"modelFormat": {"name": "huggingface"}, "securityContext": {"capabilities": {"drop": ["ALL"]}, "readOnlyRootFilesystem": true}},
		"workerSpec": {"pipelineParallelSize": 2, "containers": [{"name": "worker-container", "image": "x", "securityContext": {"privileged": true, "capabilities": {"drop": ["ALL"]}, "readOnlyRootFilesystem": true}}]},
	}}})
	v := intrusion_prevention.violation with input as fixtures.gate_input(fixtures.mlps_policy, [united, isvc])
	v == {
		_f("kubernetes:apps.kruise.io/v1alpha1:UnitedDeployment", "ud", "container embed: runs privileged"),
		_f("kubernetes:apps.kruise.io/v1alpha1:UnitedDeployment", "ud", "container embed: uses the host network"),
		_f("kubernetes:apps.kruise.io/v1alpha1:UnitedDeployment", "ud", "container embed: shares the host PID namespace"),
		_f("kubernetes:apps.kruise.io/v1alpha1:UnitedDeployment", "ud", "container embed: shares the host IPC namespace"),
		_f("kubernetes:apps.kruise.io/v1alpha1:UnitedDeployment", "ud", "pod spec unknown until apply: its containers' hardening cannot be checked"),
		_f("kubernetes:serving.kserve.io/v1beta1:InferenceService", "llm", "container predictor.workerSpec/worker-container: runs privileged"),
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

test_fail_hidden_protocol_exposes_high_risk_ports if {
	v := intrusion_prevention.violation with input as fixtures.gate_input(fixtures.mlps_policy, _hidden_protocol_rules)
	v == {_f(t, name, sprintf("security group exposes high-risk port %d to the internet (its protocol is %s, so every port)", [port, why])) |
		some [t, name, why] in [[_rule_type, "secret-proto", "secret"], [_sg_type, "unknown-proto", "unknown until apply"]]
		some port in [22, 3389, 3306, 5432, 6379, 9200]
	}
}

# red team: a secret pod spec (or part of the way to its containers) is reported as secret, and a
# secret securityContext's settings stay secret in the message
test_fail_secret_pod_specs if {
	deploy := fixtures.resource("kubernetes:apps/v1:Deployment", "web", {"metadata": {"namespace": "batch"}, "spec": {"template": {"spec": "[secret]"}}})
	whole := fixtures.resource("kubernetes:apps/v1:Deployment", "whole", {"metadata": {"namespace": "batch"}, "spec": "[secret]"})
	v := intrusion_prevention.violation with input as fixtures.gate_input(fixtures.mlps_policy, [deploy, whole])
	v == {
		_f("kubernetes:apps/v1:Deployment", "web", "pod spec secret: its containers' hardening cannot be checked"),
		_f("kubernetes:apps/v1:Deployment", "whole", "pod spec secret: its containers' hardening cannot be checked"),
	}
}

test_secret_security_context_says_secret if {
	job := fixtures.resource("kubernetes:apps/v1:Deployment", "ctx", {"metadata": {"namespace": "batch"}, "spec": {"template": {"spec": {"containers": [{"name": "c", "image": "x", "securityContext": "[secret]"}]}}}})
	v := intrusion_prevention.violation with input as fixtures.gate_input(fixtures.mlps_policy, [job])
	v == {_f("kubernetes:apps/v1:Deployment", "ctx", sprintf("container c: %s", [m])) | some m in [
		"does not drop ALL capabilities",
		"may add capabilities (secret)",
		"may run privileged (privileged secret)",
		"root filesystem is writable (readOnlyRootFilesystem secret)",
	]}
}

# red team: a ServicePatch that sets type LoadBalancer (and no internal scheme) may expose its ports
_service_patch(name, annotations, spec) := fixtures.resource("kubernetes:core/v1:ServicePatch", name, {"metadata": {"name": name, "namespace": "inference", "annotations": annotations}, "spec": spec})

test_fail_service_patch_exposes_high_risk_port if {
	resources := [
		_service_patch("db", {}, {"type": "LoadBalancer", "ports": [{"port": 5432}]}),
		_service_patch("internal", {"service.beta.kubernetes.io/aws-load-balancer-scheme": "internal"}, {"type": "LoadBalancer", "ports": [{"port": 5432}]}),
		_service_patch("ports-only", {}, {"ports": [{"port": 6379}]}),
	]
	v := intrusion_prevention.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {_f("kubernetes:core/v1:ServicePatch", "db", "Service patch setting type LoadBalancer (the Service may be internet-facing) exposes high-risk port 5432")}
}

# red team: an internet-facing load balancer answers the internet on its listeners' ports, whatever
# its security groups: a listener on a high-risk port (or on one the document does not show) is
# reported, one of an internal load balancer is not
_lb(name, internal) := object.union(fixtures.resource("aws:lb/loadBalancer:LoadBalancer", name, {"loadBalancerType": "network", "internal": internal, "subnets": ["subnet-1"]}), {"id": sprintf("%s-id", [name])})

_lb_listener(name, lb, port) := fixtures.resource("aws:lb/listener:Listener", name, {"loadBalancerArn": sprintf("%s-id", [lb]), "port": port, "protocol": "TCP", "defaultActions": []})

test_fail_internet_load_balancer_listener_on_high_risk_port if {
	resources := [
		_lb("public", false),
		_lb_listener("pg", "public", 5432),
		_lb_listener("later", "public", "[unknown]"),
		_lb_listener("tls", "public", 443),
		_lb("private", true),
		_lb_listener("private-pg", "private", 5432),
		fixtures.resource("aws:elb/loadBalancer:LoadBalancer", "classic", {"listeners": [{"lbPort": 6379, "lbProtocol": "TCP", "instancePort": 6379, "instanceProtocol": "TCP"}]}),
		fixtures.resource("aws:elb/loadBalancer:LoadBalancer", "classic-secret", {"listeners": "[secret]"}),
	]
	v := intrusion_prevention.violation with input as fixtures.gate_input(fixtures.mlps_policy, resources)
	v == {
		_f("aws:lb/listener:Listener", "pg", "listener of internet-facing load balancer public exposes high-risk port 5432 to the internet"),
		_f("aws:lb/listener:Listener", "later", "listener of internet-facing load balancer public: its port is unknown until apply, so it may expose a high-risk port to the internet"),
		_f("aws:elb/loadBalancer:LoadBalancer", "classic", "classic load balancer listener exposes high-risk port 6379 to the internet"),
		_f("aws:elb/loadBalancer:LoadBalancer", "classic-secret", "classic load balancer listener: its port is secret, so it may expose a high-risk port to the internet"),
	}
}
