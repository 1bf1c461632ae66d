package main

import "io"

func benchCmd(args []string, stdout, stderr io.Writer) int { return 2 }
