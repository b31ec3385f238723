zoo b200
