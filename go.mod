module github.com/tcsim/tcsim

go 1.26
