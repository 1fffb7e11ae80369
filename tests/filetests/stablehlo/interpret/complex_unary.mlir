// Every unary elementwise op on complex<f32> and complex<f64>, including
// branch cuts (a zero imaginary part of either sign on the negative real
// axis), zeros, infinities and NaNs. The expected values (%xla) are what
// XLA:CPU computes for these inputs (jax 0.10.2); each case allows 3 ulp per
// part, and a NaN part must be NaN.
// test: interpret
func.func @sqrt_c64() {
  %z = stablehlo.constant dense<[(-4.0, 0.0), (-4.0, -0.0), (0.0, 2.0), (3.0, -4.0), (0xFF800000, 1.0), (1.0, 0x7F800000), (1.0e-30, 1.0e-30), (-1.0e+30, 1.0)]> : tensor<8xcomplex<f32>>
  %r = stablehlo.sqrt %z : (tensor<8xcomplex<f32>>) -> tensor<8xcomplex<f32>>
  %xla = stablehlo.constant dense<[(0.0, 2.0), (0.0, 2.0), (1.0, 1.0), (2.0, -1.0), (0.0, 0x7F800000), (0x7F800000, 0x7F800000), (1.0986841e-15, 4.550899e-16), (5.0e-16, 1.0e+15)]> : tensor<8xcomplex<f32>>
  check.expect_close %r, %xla, max_ulp_difference = 3 : tensor<8xcomplex<f32>>, tensor<8xcomplex<f32>>
  func.return
}

// -----

func.func @sqrt_c128() {
  %z = stablehlo.constant dense<[(-4.0, 0.0), (-4.0, -0.0), (0.0, 2.0), (3.0, -4.0), (0xFFF0000000000000, 1.0), (1.0, 0x7FF0000000000000), (1.0e-30, 1.0e-30), (-1.0e+30, 1.0)]> : tensor<8xcomplex<f64>>
  %r = stablehlo.sqrt %z : (tensor<8xcomplex<f64>>) -> tensor<8xcomplex<f64>>
  %xla = stablehlo.constant dense<[(0.0, 2.0), (0.0, 2.0), (1.0, 1.0), (2.0, -1.0), (0.0, 0x7FF0000000000000), (0x7FF0000000000000, 0x7FF0000000000000), (1.0986841134678098e-15, 4.550898605622274e-16), (5.0e-16, 1000000000000000.0)]> : tensor<8xcomplex<f64>>
  check.expect_close %r, %xla, max_ulp_difference = 3 : tensor<8xcomplex<f64>>, tensor<8xcomplex<f64>>
  func.return
}

// -----

func.func @rsqrt_c64() {
  %z = stablehlo.constant dense<[(0.0, 0.0), (-4.0, 0.0), (-4.0, -0.0), (3.0, 4.0), (0x7F800000, 1.0), (0.5, -2.0)]> : tensor<6xcomplex<f32>>
  %r = stablehlo.rsqrt %z : (tensor<6xcomplex<f32>>) -> tensor<6xcomplex<f32>>
  %xla = stablehlo.constant dense<[(0x7F800000, 0x7FC00000), (-2.1855694e-08, -0.5), (-2.1855694e-08, 0.5), (0.39999998, -0.19999999), (0.0, -0.0), (0.5489619, 0.4286165)]> : tensor<6xcomplex<f32>>
  check.expect_close %r, %xla, max_ulp_difference = 3 : tensor<6xcomplex<f32>>, tensor<6xcomplex<f32>>
  func.return
}

// -----

func.func @rsqrt_c128() {
  %z = stablehlo.constant dense<[(0.0, 0.0), (-4.0, 0.0), (-4.0, -0.0), (3.0, 4.0), (0x7FF0000000000000, 1.0), (0.5, -2.0)]> : tensor<6xcomplex<f64>>
  %r = stablehlo.rsqrt %z : (tensor<6xcomplex<f64>>) -> tensor<6xcomplex<f64>>
  %xla = stablehlo.constant dense<[(0x7FF0000000000000, 0x7FF8000000000000), (3.061616997868383e-17, -0.5), (3.061616997868383e-17, 0.5), (0.39999999999999997, -0.19999999999999998), (0.0, -0.0), (0.5489618879741084, 0.4286164901454076)]> : tensor<6xcomplex<f64>>
  check.expect_close %r, %xla, max_ulp_difference = 3 : tensor<6xcomplex<f64>>, tensor<6xcomplex<f64>>
  func.return
}

// -----

func.func @log_c64() {
  %z = stablehlo.constant dense<[(-1.0, 0.0), (-1.0, -0.0), (0.0, 0.0), (1.0, 1.0e-06), (0.6, 0.8), (0x7F800000, 0xFF800000), (-2.5, 3.0)]> : tensor<7xcomplex<f32>>
  %r = stablehlo.log %z : (tensor<7xcomplex<f32>>) -> tensor<7xcomplex<f32>>
  %xla = stablehlo.constant dense<[(0.0, 3.1415927), (0.0, -3.1415927), (0xFF800000, 0.0), (5.0e-13, 1.0e-06), (2.3841858e-08, 0.9272952), (0x7F800000, -0.7853982), (1.3622898, 2.2655346)]> : tensor<7xcomplex<f32>>
  check.expect_close %r, %xla, max_ulp_difference = 3 : tensor<7xcomplex<f32>>, tensor<7xcomplex<f32>>
  func.return
}

// -----

func.func @log_c128() {
  %z = stablehlo.constant dense<[(-1.0, 0.0), (-1.0, -0.0), (0.0, 0.0), (1.0, 1.0e-06), (0.6, 0.8), (0x7FF0000000000000, 0xFFF0000000000000), (-2.5, 3.0)]> : tensor<7xcomplex<f64>>
  %r = stablehlo.log %z : (tensor<7xcomplex<f64>>) -> tensor<7xcomplex<f64>>
  %xla = stablehlo.constant dense<[(0.0, 3.141592653589793), (0.0, -3.141592653589793), (0xFFF0000000000000, 0.0), (4.9999999999975e-13, 9.999999999996666e-07), (2.2204460492503132e-17, 0.9272952180016123), (0x7FF0000000000000, -0.7853981633974483), (1.3622897515267105, 2.2655346029916)]> : tensor<7xcomplex<f64>>
  check.expect_close %r, %xla, max_ulp_difference = 3 : tensor<7xcomplex<f64>>, tensor<7xcomplex<f64>>
  func.return
}

// -----

func.func @log_plus_one_c64() {
  %z = stablehlo.constant dense<[(1.0e-07, 1.0e-07), (-2.0, 0.0), (-2.0, -0.0), (-1.0, 0.0), (0.0, 1.0e+30), (-0.5, 1.0), (3.0, -4.0)]> : tensor<7xcomplex<f32>>
  %r = stablehlo.log_plus_one %z : (tensor<7xcomplex<f32>>) -> tensor<7xcomplex<f32>>
  %xla = stablehlo.constant dense<[(1.0e-07, 9.999999e-08), (0.0, 3.1415927), (0.0, -3.1415927), (0xFF800000, 0.0), (69.07755, 1.5707964), (0.111571774, 1.1071488), (1.732868, -0.7853982)]> : tensor<7xcomplex<f32>>
  check.expect_close %r, %xla, max_ulp_difference = 3 : tensor<7xcomplex<f32>>, tensor<7xcomplex<f32>>
  func.return
}

// -----

func.func @log_plus_one_c128() {
  %z = stablehlo.constant dense<[(1.0e-07, 1.0e-07), (-2.0, 0.0), (-2.0, -0.0), (-1.0, 0.0), (0.0, 1.0e+30), (-0.5, 1.0), (3.0, -4.0)]> : tensor<7xcomplex<f64>>
  %r = stablehlo.log_plus_one %z : (tensor<7xcomplex<f64>>) -> tensor<7xcomplex<f64>>
  %xla = stablehlo.constant dense<[(9.999999999999932e-08, 9.999999000000066e-08), (0.0, 3.141592653589793), (0.0, -3.141592653589793), (0xFFF0000000000000, 0.0), (69.07755278982137, 1.5707963267948966), (0.11157177565710488, 1.1071487177940904), (1.7328679513998633, -0.7853981633974483)]> : tensor<7xcomplex<f64>>
  check.expect_close %r, %xla, max_ulp_difference = 3 : tensor<7xcomplex<f64>>, tensor<7xcomplex<f64>>
  func.return
}

// -----

func.func @exponential_c64() {
  %z = stablehlo.constant dense<[(0.0, 0.0), (1000.0, 0.0), (100.0, 0.001), (-1.0, 3.14159), (2.0, -1.0), (0x7FC00000, 0.0)]> : tensor<6xcomplex<f32>>
  %r = stablehlo.exponential %z : (tensor<6xcomplex<f32>>) -> tensor<6xcomplex<f32>>
  %xla = stablehlo.constant dense<[(1.0, 0.0), (0x7F800000, 0.0), (0x7F800000, 0x7F800000), (-0.36787945, 9.326412e-07), (3.9923239, -6.217676), (0x7FC00000, 0.0)]> : tensor<6xcomplex<f32>>
  check.expect_close %r, %xla, max_ulp_difference = 3 : tensor<6xcomplex<f32>>, tensor<6xcomplex<f32>>
  func.return
}

// -----

func.func @exponential_c128() {
  %z = stablehlo.constant dense<[(0.0, 0.0), (1000.0, 0.0), (100.0, 0.001), (-1.0, 3.14159), (2.0, -1.0), (0x7FF8000000000000, 0.0)]> : tensor<6xcomplex<f64>>
  %r = stablehlo.exponential %z : (tensor<6xcomplex<f64>>) -> tensor<6xcomplex<f64>>
  %xla = stablehlo.constant dense<[(1.0, 0.0), (0x7FF0000000000000, 0.0), (2.6881157977576766e+43, 2.6881166937966344e+40), (-0.3678794411701471, 9.762011302768452e-07), (3.992324048441272, -6.217676312367968), (0x7FF8000000000000, 0.0)]> : tensor<6xcomplex<f64>>
  check.expect_close %r, %xla, max_ulp_difference = 3 : tensor<6xcomplex<f64>>, tensor<6xcomplex<f64>>
  func.return
}

// -----

func.func @exponential_minus_one_c64() {
  %z = stablehlo.constant dense<[(1.0e-07, 1.0e-07), (0.0, 1.0e-04), (-1.0, 0.0), (2.0, -1.0), (0.5, 3.0)]> : tensor<5xcomplex<f32>>
  %r = stablehlo.exponential_minus_one %z : (tensor<5xcomplex<f32>>) -> tensor<5xcomplex<f32>>
  %xla = stablehlo.constant dense<[(9.9999994e-08, 1.00000015e-07), (-4.9999995e-09, 1.0e-04), (-0.63212055, 0.0), (2.9923239, -6.217676), (-2.6322217, 0.23266754)]> : tensor<5xcomplex<f32>>
  check.expect_close %r, %xla, max_ulp_difference = 3 : tensor<5xcomplex<f32>>, tensor<5xcomplex<f32>>
  func.return
}

// -----

func.func @exponential_minus_one_c128() {
  %z = stablehlo.constant dense<[(1.0e-07, 1.0e-07), (0.0, 0.0001), (-1.0, 0.0), (2.0, -1.0), (0.5, 3.0)]> : tensor<5xcomplex<f64>>
  %r = stablehlo.exponential_minus_one %z : (tensor<5xcomplex<f64>>) -> tensor<5xcomplex<f64>>
  %xla = stablehlo.constant dense<[(9.999999999999966e-08, 1.0000001000000032e-07), (-4.999999995833333e-09, 9.999999983333334e-05), (-0.6321205588285577, 0.0), (2.992324048441272, -6.217676312367968), (-2.6322216869786788, 0.23266755900967662)]> : tensor<5xcomplex<f64>>
  check.expect_close %r, %xla, max_ulp_difference = 3 : tensor<5xcomplex<f64>>, tensor<5xcomplex<f64>>
  func.return
}

// -----

func.func @sine_c64() {
  %z = stablehlo.constant dense<[(0.0, 0.0), (1.0, 1.0), (-2.0, 0.5), (0.5, -3.0), (3.14159, 10.0)]> : tensor<5xcomplex<f32>>
  %r = stablehlo.sine %z : (tensor<5xcomplex<f32>>) -> tensor<5xcomplex<f32>>
  %xla = stablehlo.constant dense<[(0.0, 0.0), (1.2984575, 0.63496387), (-1.0253474, -0.21685216), (4.8266945, -8.7915125), (0.027920546, -11013.232)]> : tensor<5xcomplex<f32>>
  check.expect_close %r, %xla, max_ulp_difference = 3 : tensor<5xcomplex<f32>>, tensor<5xcomplex<f32>>
  func.return
}

// -----

func.func @sine_c128() {
  %z = stablehlo.constant dense<[(0.0, 0.0), (1.0, 1.0), (-2.0, 0.5), (0.5, -3.0), (3.14159, 10.0)]> : tensor<5xcomplex<f64>>
  %r = stablehlo.sine %z : (tensor<5xcomplex<f64>>) -> tensor<5xcomplex<f64>>
  %xla = stablehlo.constant dense<[(0.0, 0.0), (1.2984575814159773, 0.6349639147847362), (-1.0253473885839877, -0.21685216292078974), (4.82669427481082, -8.791512343493714), (0.029224602468602465, -11013.232874664618)]> : tensor<5xcomplex<f64>>
  check.expect_close %r, %xla, max_ulp_difference = 3 : tensor<5xcomplex<f64>>, tensor<5xcomplex<f64>>
  func.return
}

// -----

func.func @cosine_c64() {
  %z = stablehlo.constant dense<[(0.0, 0.0), (1.0, 1.0), (-2.0, 0.5), (0.5, -3.0), (3.14159, 10.0)]> : tensor<5xcomplex<f32>>
  %r = stablehlo.cosine %z : (tensor<5xcomplex<f32>>) -> tensor<5xcomplex<f32>>
  %xla = stablehlo.constant dense<[(1.0, 0.0), (0.8337299, -0.9888977), (-0.46925798, 0.47383058), (8.835205, 4.802825), (-11013.232, -0.027920546)]> : tensor<5xcomplex<f32>>
  check.expect_close %r, %xla, max_ulp_difference = 3 : tensor<5xcomplex<f32>>, tensor<5xcomplex<f32>>
  func.return
}

// -----

func.func @cosine_c128() {
  %z = stablehlo.constant dense<[(0.0, 0.0), (1.0, 1.0), (-2.0, 0.5), (0.5, -3.0), (3.14159, 10.0)]> : tensor<5xcomplex<f64>>
  %r = stablehlo.cosine %z : (tensor<5xcomplex<f64>>) -> tensor<5xcomplex<f64>>
  %xla = stablehlo.constant dense<[(1.0, 0.0), (0.8337300251311492, -0.9888977057628652), (-0.4692579782290534, 0.473830620416407), (8.835204606500994, 4.802825082743033), (-11013.232920064549, -0.02922460234812967)]> : tensor<5xcomplex<f64>>
  check.expect_close %r, %xla, max_ulp_difference = 3 : tensor<5xcomplex<f64>>, tensor<5xcomplex<f64>>
  func.return
}

// -----

func.func @tan_c64() {
  %z = stablehlo.constant dense<[(0.0, 0.0), (1.0, 1.0), (0.0, 1.0e+10), (-1.2, 0.3), (0.5, -3.0), (1.5707964, 0.0)]> : tensor<6xcomplex<f32>>
  %r = stablehlo.tan %z : (tensor<6xcomplex<f32>>) -> tensor<6xcomplex<f32>>
  %xla = stablehlo.constant dense<[(0.0, 0.0), (0.27175257, 1.0839233), (0.0, 1.0), (-1.5074897, 1.4208753), (0.004160427, -0.9973164), (-2.2877334e+07, 0.0)]> : tensor<6xcomplex<f32>>
  check.expect_close %r, %xla, max_ulp_difference = 3 : tensor<6xcomplex<f32>>, tensor<6xcomplex<f32>>
  func.return
}

// -----

func.func @tan_c128() {
  %z = stablehlo.constant dense<[(0.0, 0.0), (1.0, 1.0), (0.0, 10000000000.0), (-1.2, 0.3), (0.5, -3.0), (1.5707963267948966, 0.0)]> : tensor<6xcomplex<f64>>
  %r = stablehlo.tan %z : (tensor<6xcomplex<f64>>) -> tensor<6xcomplex<f64>>
  %xla = stablehlo.constant dense<[(0.0, 0.0), (0.27175258531951174, 1.0839233273386946), (0.0, 1.0), (-1.507489711975405, 1.420874968192412), (0.0041604265928938304, -0.9973163652832019), (1.633123935319537e+16, 0.0)]> : tensor<6xcomplex<f64>>
  check.expect_close %r, %xla, max_ulp_difference = 3 : tensor<6xcomplex<f64>>, tensor<6xcomplex<f64>>
  func.return
}

// -----

func.func @tanh_c64() {
  %z = stablehlo.constant dense<[(0.0, 0.0), (1.0, 1.0), (1.0e+10, 1.0), (-30.0, 2.0), (0.3, -1.2), (0x7F800000, 0x7FC00000)]> : tensor<6xcomplex<f32>>
  %r = stablehlo.tanh %z : (tensor<6xcomplex<f32>>) -> tensor<6xcomplex<f32>>
  %xla = stablehlo.constant dense<[(0.0, 0.0), (1.0839233, 0.27175257), (1.0, 0.0), (-1.0, -1.3253899e-26), (1.4208753, -1.5074897), (1.0, 0.0)]> : tensor<6xcomplex<f32>>
  check.expect_close %r, %xla, max_ulp_difference = 3 : tensor<6xcomplex<f32>>, tensor<6xcomplex<f32>>
  func.return
}

// -----

func.func @tanh_c128() {
  %z = stablehlo.constant dense<[(0.0, 0.0), (1.0, 1.0), (10000000000.0, 1.0), (-30.0, 2.0), (0.3, -1.2), (0x7FF0000000000000, 0x7FF8000000000000)]> : tensor<6xcomplex<f64>>
  %r = stablehlo.tanh %z : (tensor<6xcomplex<f64>>) -> tensor<6xcomplex<f64>>
  %xla = stablehlo.constant dense<[(0.0, 0.0), (1.0839233273386946, 0.27175258531951174), (1.0, 0.0), (-1.0, -1.3253898390798914e-26), (1.420874968192412, -1.507489711975405), (1.0, 0.0)]> : tensor<6xcomplex<f64>>
  check.expect_close %r, %xla, max_ulp_difference = 3 : tensor<6xcomplex<f64>>, tensor<6xcomplex<f64>>
  func.return
}

// -----

func.func @logistic_c64() {
  %z = stablehlo.constant dense<[(0.0, 0.0), (1.0, 1.0), (-1.0e+10, 0.0), (2.0, -3.0), (-0.5, 0.25)]> : tensor<5xcomplex<f32>>
  %r = stablehlo.logistic %z : (tensor<5xcomplex<f32>>) -> tensor<5xcomplex<f32>>
  %xla = stablehlo.constant dense<[(0.5, 0.0), (0.78204155, 0.20194823), (0.0, 0.0), (1.1541477, -0.02545268), (0.37572485, 0.05900297)]> : tensor<5xcomplex<f32>>
  check.expect_close %r, %xla, max_ulp_difference = 3 : tensor<5xcomplex<f32>>, tensor<5xcomplex<f32>>
  func.return
}

// -----

func.func @logistic_c128() {
  %z = stablehlo.constant dense<[(0.0, 0.0), (1.0, 1.0), (-10000000000.0, 0.0), (2.0, -3.0), (-0.5, 0.25)]> : tensor<5xcomplex<f64>>
  %r = stablehlo.logistic %z : (tensor<5xcomplex<f64>>) -> tensor<5xcomplex<f64>>
  %xla = stablehlo.constant dense<[(0.5, 0.0), (0.7820415706337492, 0.20194822765801285), (0.0, 0.0), (1.1541476496139678, -0.02545268116361431), (0.3757248355800388, 0.059002964314508036)]> : tensor<5xcomplex<f64>>
  check.expect_close %r, %xla, max_ulp_difference = 3 : tensor<5xcomplex<f64>>, tensor<5xcomplex<f64>>
  func.return
}

// -----

func.func @sign_c64() {
  %z = stablehlo.constant dense<[(0.0, 0.0), (-0.0, 0.0), (3.0, -4.0), (0xFF800000, 0.0), (0x7FC00000, 1.0), (1.0e-20, 1.0e-20)]> : tensor<6xcomplex<f32>>
  %r = stablehlo.sign %z : (tensor<6xcomplex<f32>>) -> tensor<6xcomplex<f32>>
  %xla = stablehlo.constant dense<[(0.0, 0.0), (-0.0, 0.0), (0.6, -0.8), (0x7FC00000, 0.0), (0x7FC00000, 0x7FC00000), (0.70710677, 0.70710677)]> : tensor<6xcomplex<f32>>
  check.expect_close %r, %xla, max_ulp_difference = 3 : tensor<6xcomplex<f32>>, tensor<6xcomplex<f32>>
  func.return
}

// -----

func.func @sign_c128() {
  %z = stablehlo.constant dense<[(0.0, 0.0), (-0.0, 0.0), (3.0, -4.0), (0xFFF0000000000000, 0.0), (0x7FF8000000000000, 1.0), (1.0e-20, 1.0e-20)]> : tensor<6xcomplex<f64>>
  %r = stablehlo.sign %z : (tensor<6xcomplex<f64>>) -> tensor<6xcomplex<f64>>
  %xla = stablehlo.constant dense<[(0.0, 0.0), (-0.0, 0.0), (0.6, -0.8), (0x7FF8000000000000, 0.0), (0x7FF8000000000000, 0x7FF8000000000000), (0.7071067811865475, 0.7071067811865475)]> : tensor<6xcomplex<f64>>
  check.expect_close %r, %xla, max_ulp_difference = 3 : tensor<6xcomplex<f64>>, tensor<6xcomplex<f64>>
  func.return
}

// -----

func.func @abs_c64() {
  %z = stablehlo.constant dense<[(3.0, -4.0), (0x7F800000, 0x7FC00000), (0x7FC00000, 0.0), (1.0e+30, 1.0e+30), (-0.0, 0.0), (1.0e-30, -2.0e-30)]> : tensor<6xcomplex<f32>>
  %r = stablehlo.abs %z : (tensor<6xcomplex<f32>>) -> tensor<6xf32>
  %xla = stablehlo.constant dense<[5.0, 0x7FC00000, 0x7FC00000, 1.4142135e+30, 0.0, 2.236068e-30]> : tensor<6xf32>
  check.expect_close %r, %xla, max_ulp_difference = 3 : tensor<6xf32>, tensor<6xf32>
  func.return
}

// -----

func.func @abs_c128() {
  %z = stablehlo.constant dense<[(3.0, -4.0), (0x7FF0000000000000, 0x7FF8000000000000), (0x7FF8000000000000, 0.0), (1.0e+30, 1.0e+30), (-0.0, 0.0), (1.0e-30, -2.0e-30)]> : tensor<6xcomplex<f64>>
  %r = stablehlo.abs %z : (tensor<6xcomplex<f64>>) -> tensor<6xf64>
  %xla = stablehlo.constant dense<[5.0, 0x7FF8000000000000, 0x7FF8000000000000, 1.4142135623730953e+30, 0.0, 2.23606797749979e-30]> : tensor<6xf64>
  check.expect_close %r, %xla, max_ulp_difference = 3 : tensor<6xf64>, tensor<6xf64>
  func.return
}
