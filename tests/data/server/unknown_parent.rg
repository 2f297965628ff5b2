group1     10  root    40
pbsuser    11  nosuch  50
