optimize tests/golden/inputs/bad_scenario_constraint.yml --export-astra "$T/astra.yml"
