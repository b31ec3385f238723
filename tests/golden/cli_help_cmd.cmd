help zoo
