optimze
