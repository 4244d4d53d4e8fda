module weft

go 1.26

require golang.org/x/tools v0.30.0
