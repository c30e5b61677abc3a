print("hitthat")
