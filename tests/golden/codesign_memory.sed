s/: needs .*/: needs <memory numbers>/
