optimize --model llama3-405b --tp 8 --pp 16 --zero 1 --recompute full --cluster dgx-b200 --npus 16384 --parts-per-dim nvlink5,xdr --planes 0,2 --constraint 'B1 = 900' --constraint 'B2 = 100'
