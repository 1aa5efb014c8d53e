package sim

// Stepper is filled in by step.go's API.
type Stepper struct {
	hazards []Hazard
}

func (s *Stepper) onHazard(h Hazard) { s.hazards = append(s.hazards, h) }
