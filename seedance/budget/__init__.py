"""Budget-triggered redeploys: read AWS Budgets alerts, apply the policy's threshold actions."""
