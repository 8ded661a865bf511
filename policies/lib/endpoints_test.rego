package lib.endpoints_test

import data.lib.endpoints

_ep(name) := {"inputs": {"serviceName": name}}

# the services the VPC CNI plugin, a Cluster Autoscaler and the AWS Load Balancer Controller reach, in
# either partition's spelling (EC2 and Auto Scaling take the cn. prefix in the China regions)
test_endpoints_service_of_the_node_and_controller_apis if {
	endpoints.service(_ep("com.amazonaws.eu-central-1.ec2")) == "ec2"
	endpoints.service(_ep("cn.com.amazonaws.cn-north-1.ec2")) == "ec2"
	endpoints.service(_ep("cn.com.amazonaws.cn-northwest-1.autoscaling")) == "autoscaling"
	endpoints.service(_ep("com.amazonaws.us-east-1.elasticloadbalancing")) == "elasticloadbalancing"
	endpoints.service(_ep("com.amazonaws.us-gov-west-1.ec2")) == "ec2"
}

test_endpoints_present_counts_an_ec2_endpoint_of_the_document if {
	doc := {"stack": "s", "resources": [{"type": "aws:ec2/vpcEndpoint:VpcEndpoint", "inputs": {
		"serviceName": "cn.com.amazonaws.cn-north-1.ec2",
		"vpcEndpointType": "Interface",
	}}]}
	endpoints.present(doc, "ec2") with input as {"document": doc, "policy": {}}
	not endpoints.present(doc, "autoscaling") with input as {"document": doc, "policy": {}}
}

test_endpoints_present_takes_a_listed_ec2_endpoint_on_the_policys_word if {
	doc := {"stack": "s", "resources": []}
	endpoints.present(doc, "ec2") with input as {"document": doc, "policy": {"network": {"existingEndpoints": ["ec2"]}}}
}
