"test.region"() ({
^bb0(%a: i32):
  "test.br"(%a)[^bb1] : (i32) -> ()
^bb1(%b: i32):
  "test.cond"(%b)[^bb0, ^bb1] : (i32) -> ()
}) : () -> ()
