//go:build !race

package gcassist_test

const raceBuild = false
