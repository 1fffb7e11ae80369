// An sdy.mesh's axes are written inside <…>
// test: error
// error: expected a mesh such as <["x"=8]>
sdy.mesh @mesh = ["x"=2, "y"=4]
