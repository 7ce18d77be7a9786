print("routetiles")
