package contract_test

import (
	"fmt"

	"github.com/contractgraph/contractgraph/internal/contract"
)

func ExampleNormalizeDate() {
	for _, s := range []string{"the 5th day of January, 2010", "1/5/10", "2019-02-30"} {
		d, err := contract.NormalizeDate(s)
		fmt.Println(d, err)
	}
	// Output:
	// 2010-01-05 <nil>
	// 2010-01-05 <nil>
	//  invalid date "2019-02-30": day 30 does not exist in 2019-02
}

func ExamplePartyKey() {
	fmt.Println(contract.PartyKey("The Acme Corporation"))
	fmt.Println(contract.PartyKey("ACME, Corp."))
	fmt.Println(contract.MatchKey("C.M. Oliver, Inc."))
	// Output:
	// acme
	// acme
	// cm oliver inc
}

func ExampleNormalizeCountry() {
	for _, s := range []string{"U.S.A.", "England", "PRC", "Cayman Islands"} {
		c, _ := contract.NormalizeCountry(s)
		fmt.Println(c)
	}
	// Output:
	// US
	// GB
	// CN
	// KY
}

func ExampleDurationEnd() {
	days, _ := contract.ParseISODuration("P1Y6M")
	end, _ := contract.DurationEnd("2020-01-15", "P1Y6M")
	fmt.Println(days, end)
	// Output: 545 2021-07-15
}
