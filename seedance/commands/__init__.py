"""Click commands of each area; registered explicitly in seedance.cli."""
