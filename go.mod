module weft

go 1.26
