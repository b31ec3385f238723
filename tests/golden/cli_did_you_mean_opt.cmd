optimize --constrant 'sum = 1000' tests/golden/inputs/small.yml
