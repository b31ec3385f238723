simulate ''
