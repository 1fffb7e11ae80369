"x.op"() {s = "tab\t quote\22 nl\n", t = "\00\41", u = "caf\C3\A9"} : () -> ()
